-- Push credentials live with their provider, sealed (AES-256-GCM under REGISTRY_MASTER_KEY, see
-- SecretSealer): `credentials_sealed` names the master key it was sealed under, so the key can be
-- rotated. Beside it only what may be shown (ids, the public key's fingerprint), so listing
-- providers never needs the master key. `endpoint` overrides the push service's base URL.
ALTER TABLE providers
    ADD COLUMN endpoint                text CHECK (endpoint ~ '^https://[^/?#@ ]+$'),
    ADD COLUMN credentials_sealed      text,
    ADD COLUMN credential_team_id      text,
    ADD COLUMN credential_key_id       text,
    ADD COLUMN credential_client_email text,
    ADD COLUMN credential_fingerprint  text,
    ADD CONSTRAINT providers_credentials_have_fingerprint
        CHECK ((credentials_sealed IS NULL) = (credential_fingerprint IS NULL));
