-- The APNs provider token (an ES256 JWT) each APNs key currently uses, shared by every instance on
-- this database: Apple refuses a key's token renewed more often than every 20 minutes
-- (TooManyProviderTokenUpdates), so N instances must sign one token per renewal window, not N.
-- One row per key (team, key id and the key's public fingerprint, so two keys uploaded under one
-- key id never share a token). The token is sealed under REGISTRY_MASTER_KEY like the credentials
-- it is signed with; `issued_at` is its `iat`. Renewal happens under an advisory lock on the key.
CREATE TABLE apns_provider_tokens (
    team_id         text        NOT NULL,
    key_id          text        NOT NULL,
    key_fingerprint text        NOT NULL,
    token_sealed    text        NOT NULL,
    issued_at       timestamptz NOT NULL,
    PRIMARY KEY (team_id, key_id, key_fingerprint)
);
