-- register_devices() (0006) with the same outcomes, for less of PostgreSQL's CPU per batch. The
-- group commit's one write connection is the serial part of registering (docs/performance.md,
-- "Where registrations wait"), so what a batch costs PostgreSQL bounds registrations per second.
--  * The created devices were matched back to their items by a join of the inserted rows with
--    the common items on (token, provider): planned as a nested loop, n × n comparisons (4,032
--    rows removed by its filter for 64 items, ~10% of the function's CPU at 32). A common item's
--    token occurs once in the batch, so its position in p_token (1-based, as every parameter
--    array is) is its number: array_position(), one pass over the tokens, in C.
--  * The query selecting the items left for register_device() ran even when every item was
--    common (the usual case); it is skipped then.
CREATE OR REPLACE FUNCTION register_devices(
    p_provider text[], p_token text[], p_type text[], p_user_id text[], p_environment text[],
    p_device_id text[], p_platform text[], p_app_version text[], p_locale text[], p_user_cap integer)
RETURNS TABLE (ord integer, result text, previous_user_id text, replaced_token text,
               evicted_tokens text[], device devices)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz := clock_timestamp();
    v_ord integer[];
    v_result text[];
    v_device devices[];
    v_item record;
BEGIN
    WITH input AS (
        SELECT i.*, count(*) OVER (PARTITION BY i.token) AS token_uses,
               count(*) OVER (PARTITION BY i.user_id) AS user_uses
          FROM unnest(p_provider, p_token, p_type, p_user_id, p_environment, p_device_id, p_platform,
                      p_app_version, p_locale)
               WITH ORDINALITY AS i(provider, token, type, user_id, environment, device_id, platform,
                                    app_version, locale, n)),
    candidates AS (
        SELECT i.* FROM input i JOIN providers p ON p.name = i.provider
         WHERE (p.service = 'apns') = (i.type IN ('apns', 'voip'))
           AND i.device_id IS NULL AND i.token_uses = 1 AND i.user_uses = 1),
    existing AS (
        SELECT d.* FROM devices d JOIN candidates c ON d.token = c.token AND d.provider = c.provider
           FOR UPDATE OF d),
    common AS (
        SELECT c.*, e.id AS existing_id,
               (e.type, e.environment, e.platform, e.app_version, e.locale, e.disabled_at)
               IS NOT DISTINCT FROM
               (c.type, c.environment, c.platform, c.app_version, c.locale, NULL::timestamptz) AS same
          FROM candidates c LEFT JOIN existing e ON e.token = c.token AND e.provider = c.provider
         WHERE (e.id IS NULL OR (e.user_id = c.user_id AND e.device_id IS NULL))
           AND (p_user_cap IS NULL
                OR (SELECT count(*) FROM devices x WHERE x.user_id = c.user_id)
                   < p_user_cap + CASE WHEN e.id IS NULL THEN 0 ELSE 1 END)),
    updated AS (
        UPDATE devices d
           SET type = c.type, environment = c.environment, platform = c.platform,
               app_version = c.app_version, locale = c.locale, last_seen_at = v_now,
               updated_at = CASE WHEN c.same THEN d.updated_at ELSE v_now END,
               disabled_reason = NULL, disabled_at = NULL
          FROM common c
         WHERE d.id = c.existing_id
        RETURNING c.n, CASE WHEN c.same THEN 'unchanged' ELSE 'updated' END AS result, d AS device),
    inserted AS (
        INSERT INTO devices AS d (provider, token, type, user_id, environment, device_id, platform,
                                  app_version, locale, created_at, updated_at, last_seen_at)
        SELECT c.provider, c.token, c.type, c.user_id, c.environment, NULL, c.platform, c.app_version,
               c.locale, v_now, v_now, v_now
          FROM common c WHERE c.existing_id IS NULL
        ON CONFLICT (token, provider) DO NOTHING
        RETURNING d.token, d.provider, d AS device),
    done AS (
        SELECT u.n, u.result, u.device FROM updated u
        UNION ALL
        -- A common item's token is the only one of its kind in the batch (token_uses = 1), so its
        -- position among the tokens is the item's number.
        SELECT array_position(p_token, i.token), 'created', i.device FROM inserted i)
    SELECT coalesce(array_agg(done.n::integer), '{}'), array_agg(done.result), array_agg(done.device)
      INTO v_ord, v_result, v_device
      FROM done;

    -- By subscript: unnest() would spread each device over its columns.
    RETURN QUERY SELECT v_ord[k], v_result[k], NULL::text, NULL::text, '{}'::text[], v_device[k]
                   FROM generate_subscripts(v_ord, 1) AS k;

    -- Usually every item was common: then the query for the rest need not run at all.
    IF cardinality(v_ord) = cardinality(p_token) THEN
        RETURN;
    END IF;
    FOR v_item IN
        SELECT i.* FROM unnest(p_provider, p_token, p_type, p_user_id, p_environment, p_device_id,
                               p_platform, p_app_version, p_locale)
                        WITH ORDINALITY AS i(provider, token, type, user_id, environment, device_id,
                                             platform, app_version, locale, n)
         WHERE i.n <> ALL (v_ord)
         ORDER BY i.n
    LOOP
        RETURN QUERY SELECT v_item.n::integer, r.*
                       FROM register_device(v_item.provider, v_item.token, v_item.type, v_item.user_id,
                                            v_item.environment, v_item.device_id, v_item.platform,
                                            v_item.app_version, v_item.locale, p_user_cap) r;
    END LOOP;
END;
$$;
