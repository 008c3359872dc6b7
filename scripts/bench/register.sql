-- pgbench: one device registration, the same statement as DeviceRepository.registerSQL
-- (Sources/RelayStore/Devices/DeviceRepository.swift; a test keeps the two identical), with
-- pgbench variables for its parameters. Run with -M prepared, so :variables are bound
-- parameters exactly as the relay binds them. The first statement draws a fresh random
-- token, as the API benchmark's clients do, and an empty alias and a badge of 0 (pgbench
-- variables cannot be NULL; for a fresh token NULL and 0 both insert 0). Two round trips,
-- like the relay's (app lookup, then the upsert).
SELECT md5(random()::text) || md5(random()::text) AS token, '' AS alias, 0 AS badge \gset
WITH device AS (
    INSERT INTO devices AS d (app_id, token, environment, alias, badge, platform)
    VALUES (:app_id, :token, :environment, NULLIF(:alias, ''), coalesce(:badge::integer, 0), coalesce(:platform::text, 'ios'))
    ON CONFLICT (app_id, token) DO UPDATE SET
        platform = EXCLUDED.platform,
        environment = EXCLUDED.environment,
        alias = CASE WHEN :alias_given::boolean THEN EXCLUDED.alias ELSE d.alias END,
        badge = coalesce(:badge::integer, d.badge),
        registered_at = now(),
        last_seen_at = now(),
        reactivated_at = CASE WHEN d.active THEN d.reactivated_at ELSE now() END,
        active = true
    RETURNING d.id, d.registration_id
), dropped AS (
    DELETE FROM device_tags t USING device
    WHERE :tags_given::boolean AND t.device_id = device.id AND NOT (t.tag = ANY (:tags::text[]))
), added AS (
    INSERT INTO device_tags (app_id, tag, device_id)
    SELECT :app_id, tag, device.id FROM device, unnest(:tags::text[]) AS tag WHERE :tags_given::boolean
    ON CONFLICT DO NOTHING
)
SELECT replace(registration_id::text, '-', '') AS rid FROM device;
