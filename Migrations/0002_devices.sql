-- One row per push token. (token, provider) is unique: a token has exactly one owner, enforced
-- by the index rather than by check-then-insert. The index leads with token so that a lookup by
-- token alone (GET /v1/devices/{token}) uses it too.
CREATE TABLE devices (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider         text NOT NULL REFERENCES providers (name),
    token            text NOT NULL,
    type             text NOT NULL CHECK (type IN ('apns', 'voip', 'fcm')),
    user_id          text NOT NULL CHECK (octet_length(user_id) BETWEEN 1 AND 255),
    environment      text CHECK (environment IN ('production', 'sandbox')),
    device_id        text,
    platform         text,
    app_version      text,
    locale           text,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    last_seen_at     timestamptz NOT NULL,
    disabled_reason  text,
    disabled_at      timestamptz,
    CONSTRAINT devices_token_provider_key UNIQUE (token, provider),
    CONSTRAINT devices_environment_is_apns CHECK ((type = 'fcm') = (environment IS NULL))
);

-- A user's devices, newest first; also the cap's eviction order.
CREATE INDEX devices_user_last_seen ON devices (user_id, last_seen_at DESC, id DESC);
-- Token rotation: the installation's previous token of the same type.
CREATE INDEX devices_installation ON devices (device_id, provider, type) WHERE device_id IS NOT NULL;
-- Pruning and the stale-device filter.
CREATE INDEX devices_last_seen ON devices (last_seen_at);
