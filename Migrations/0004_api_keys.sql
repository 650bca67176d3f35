-- API keys: only the SHA-256 of the secret is kept (hex), never the secret itself.
CREATE TABLE api_keys (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
    scopes        text[] NOT NULL
                  CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY['devices:read', 'devices:write', 'admin']),
    secret_hash   text NOT NULL UNIQUE CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_used_at  timestamptz,
    revoked_at    timestamptz
);
