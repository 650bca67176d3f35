-- `push:send`: a key that may send pushes (POST /v1/push) and nothing else.
ALTER TABLE api_keys DROP CONSTRAINT api_keys_scopes_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_scopes_check
    CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY['devices:read', 'devices:write', 'push:send', 'admin']);
