-- Imports many registrations in one statement, for moving a registry from another system: the
-- same one-owner-per-token upsert as register_device(), set-based (an order of magnitude faster
-- than a call per row). Records are taken as they are: no token rotation and no per-user cap (the
-- next registration of a user over the cap evicts as usual). The arrays are parallel, one element
-- per record; a (token, provider) may appear only once per call.
-- result per record, in input order: created | unchanged | updated | moved | unknown_provider |
-- type_not_accepted.
CREATE FUNCTION import_devices(
    p_provider text[], p_token text[], p_type text[], p_user_id text[], p_environment text[],
    p_device_id text[], p_platform text[], p_app_version text[], p_locale text[])
RETURNS TABLE (ord bigint, result text, previous_user_id text)
LANGUAGE sql AS $$
    WITH input AS (
        SELECT i.*, p.service,
               p.service IS NOT NULL AND (p.service = 'apns') = (i.type IN ('apns', 'voip')) AS accepted
          FROM unnest(p_provider, p_token, p_type, p_user_id, p_environment, p_device_id, p_platform,
                      p_app_version, p_locale)
               WITH ORDINALITY AS i(provider, token, type, user_id, environment, device_id, platform,
                                    app_version, locale, ord)
          LEFT JOIN providers p ON p.name = i.provider),
    previous AS (
        SELECT d.* FROM devices d JOIN input i ON d.token = i.token AND d.provider = i.provider
         WHERE i.accepted
           FOR UPDATE OF d),
    written AS (
        INSERT INTO devices AS d (provider, token, type, user_id, environment, device_id, platform,
                                  app_version, locale, created_at, updated_at, last_seen_at)
        SELECT provider, token, type, user_id, environment, device_id, platform, app_version, locale,
               statement_timestamp(), statement_timestamp(), statement_timestamp()
          FROM input WHERE accepted
        ON CONFLICT (token, provider) DO UPDATE
           SET type = EXCLUDED.type, user_id = EXCLUDED.user_id, environment = EXCLUDED.environment,
               device_id = EXCLUDED.device_id, platform = EXCLUDED.platform,
               app_version = EXCLUDED.app_version, locale = EXCLUDED.locale,
               last_seen_at = EXCLUDED.last_seen_at,
               updated_at = CASE
                   WHEN (d.type, d.user_id, d.environment, d.device_id, d.platform, d.app_version, d.locale,
                         d.disabled_at)
                        IS NOT DISTINCT FROM
                        (EXCLUDED.type, EXCLUDED.user_id, EXCLUDED.environment, EXCLUDED.device_id,
                         EXCLUDED.platform, EXCLUDED.app_version, EXCLUDED.locale, NULL::timestamptz)
                   THEN d.updated_at ELSE EXCLUDED.updated_at END,
               disabled_reason = NULL, disabled_at = NULL
        RETURNING d.token, d.provider, (d.xmax = 0) AS inserted)
    SELECT i.ord,
           CASE WHEN i.service IS NULL THEN 'unknown_provider'
                WHEN NOT i.accepted THEN 'type_not_accepted'
                WHEN p.id IS NULL AND w.inserted THEN 'created'
                -- Inserted concurrently after this statement's snapshot: its owner is unknown here.
                WHEN p.id IS NULL THEN 'updated'
                WHEN p.user_id <> i.user_id THEN 'moved'
                WHEN (p.type, p.environment, p.device_id, p.platform, p.app_version, p.locale, p.disabled_at)
                     IS NOT DISTINCT FROM
                     (i.type, i.environment, i.device_id, i.platform, i.app_version, i.locale, NULL::timestamptz)
                THEN 'unchanged'
                ELSE 'updated' END,
           CASE WHEN p.user_id <> i.user_id THEN p.user_id END
      FROM input i
      LEFT JOIN previous p ON p.token = i.token AND p.provider = i.provider
      LEFT JOIN written w ON w.token = i.token AND w.provider = i.provider
     ORDER BY i.ord
$$;
