-- The payload shape a provider's app parses (CallFormat) and its title/body templates per call
-- event type (NotificationTemplates' JSON, `{}` for none).
ALTER TABLE providers
    ADD COLUMN call_format text NOT NULL DEFAULT 'stream'
        CHECK (call_format IN ('stream', 'dialstack', 'react-native', 'flexisip', 'signalwire')),
    ADD COLUMN templates   jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(templates) = 'object');

-- A device's AES-256 key for encrypted SignalWire payloads, sealed under REGISTRY_MASTER_KEY like
-- provider credentials (SecretSealer, bound to the provider and token).
ALTER TABLE devices ADD COLUMN payload_key_sealed text;

-- A token that moves to another user is someone else's phone now: the key the previous user's app
-- received must not decrypt the new user's calls. Every path that moves a token (registration,
-- batch, import) is an UPDATE of user_id, so one trigger covers them all.
CREATE FUNCTION drop_payload_key_on_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.payload_key_sealed := NULL;
    RETURN NEW;
END;
$$;

CREATE TRIGGER devices_drop_payload_key_on_move
    BEFORE UPDATE OF user_id ON devices
    FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id AND OLD.payload_key_sealed IS NOT NULL)
    EXECUTE FUNCTION drop_payload_key_on_move();
