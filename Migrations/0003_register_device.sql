-- Registers one token in one round trip, race-free:
--  * one user's registrations are serialised by an advisory lock, so the per-user cap and token
--    rotation see each other's rows;
--  * the token's row is locked if it exists; otherwise inserted with ON CONFLICT DO NOTHING, and a
--    registration that lost the insert race locks and updates the winner's row instead;
--  * a rejected provider or type is reported as a result, not raised, so a batch of registrations
--    in one transaction is not aborted by one bad item.
-- result: created | unchanged | updated | moved | unknown_provider | type_not_accepted.
CREATE FUNCTION register_device(
    p_provider text, p_token text, p_type text, p_user_id text, p_environment text,
    p_device_id text, p_platform text, p_app_version text, p_locale text, p_user_cap integer,
    OUT result text, OUT previous_user_id text, OUT replaced_token text,
    OUT evicted_tokens text[], OUT device devices)
LANGUAGE plpgsql AS $$
DECLARE
    v_service text;
    v_now timestamptz := clock_timestamp();
    existing devices;
BEGIN
    evicted_tokens := '{}';
    SELECT p.service INTO v_service FROM providers p WHERE p.name = p_provider;
    IF NOT FOUND THEN
        result := 'unknown_provider';
        RETURN;
    END IF;
    IF (v_service = 'apns') <> (p_type IN ('apns', 'voip')) THEN
        result := 'type_not_accepted';
        RETURN;
    END IF;

    PERFORM pg_advisory_xact_lock(hashtextextended(p_user_id, 0));

    IF p_device_id IS NOT NULL THEN
        WITH replaced AS (
            DELETE FROM devices d
             WHERE d.device_id = p_device_id AND d.provider = p_provider AND d.type = p_type
               AND d.token <> p_token
            RETURNING d.token)
        SELECT min(r.token) INTO replaced_token FROM replaced r;
    END IF;

    LOOP
        SELECT * INTO existing FROM devices d
         WHERE d.token = p_token AND d.provider = p_provider FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO devices AS d (provider, token, type, user_id, environment, device_id,
                                      platform, app_version, locale, created_at, updated_at, last_seen_at)
            VALUES (p_provider, p_token, p_type, p_user_id, p_environment, p_device_id,
                    p_platform, p_app_version, p_locale, v_now, v_now, v_now)
            ON CONFLICT (token, provider) DO NOTHING
            RETURNING d.* INTO device;
            IF FOUND THEN
                result := 'created';
                EXIT;
            END IF;
            -- A concurrent registration inserted the token first: loop to lock its row.
        ELSE
            IF existing.user_id <> p_user_id THEN
                result := 'moved';
                previous_user_id := existing.user_id;
            ELSIF (existing.type, existing.environment, existing.device_id, existing.platform,
                   existing.app_version, existing.locale, existing.disabled_at)
                  IS NOT DISTINCT FROM
                  (p_type, p_environment, p_device_id, p_platform, p_app_version, p_locale, NULL::timestamptz) THEN
                result := 'unchanged';
            ELSE
                result := 'updated';
            END IF;
            UPDATE devices d
               SET type = p_type, user_id = p_user_id, environment = p_environment,
                   device_id = p_device_id, platform = p_platform, app_version = p_app_version,
                   locale = p_locale, last_seen_at = v_now,
                   updated_at = CASE WHEN result = 'unchanged' THEN d.updated_at ELSE v_now END,
                   disabled_reason = NULL, disabled_at = NULL
             WHERE d.id = existing.id
            RETURNING d.* INTO device;
            EXIT;
        END IF;
    END LOOP;

    IF p_user_cap IS NOT NULL THEN
        -- An id list rather than DELETE … USING: the function's cached generic plan would
        -- otherwise join against the whole table.
        WITH evicted AS (
            DELETE FROM devices d
             WHERE d.id = ANY (ARRAY(
                SELECT x.id FROM devices x
                 WHERE x.user_id = p_user_id AND x.id <> (device).id
                 ORDER BY x.last_seen_at DESC, x.id DESC
                OFFSET greatest(p_user_cap - 1, 0)))
            RETURNING d.token, d.last_seen_at)
        SELECT coalesce(array_agg(v.token ORDER BY v.last_seen_at), '{}') INTO evicted_tokens
          FROM evicted v;
    END IF;
END;
$$;
