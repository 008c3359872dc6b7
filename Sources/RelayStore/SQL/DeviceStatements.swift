import PostgresStore
import RelayCore

/// Every statement on the `devices` and `device_tags` tables, one text each, always scoped
/// to one app ($1 the app's id wherever a registration id or token is looked up), so a
/// device of another app is simply not found.
enum DeviceStatements {
    // MARK: One device

    /// Registers a token, or refreshes the device that has it: same registration id, new
    /// platform and environment, `registered_at` and `last_seen_at`, and a dead token comes back to life
    /// (`reactivated_at`). One statement, so it is atomic without a transaction.
    ///
    /// Parameters: $1 app, $2 token, $3 environment, $4 alias given, $5 alias ("" removes),
    /// $6 badge (NULL keeps), $7 tags given, $8 tags (text[]), $9 platform (`ios` by default,
    /// so an environment alone registers an iOS token). The benchmark's pgbench script
    /// (scripts/bench/register.sql) runs this same statement.
    static let register = SQLStatement("pushrelay_register_device", """
        WITH device AS (
            INSERT INTO devices AS d (app_id, token, environment, alias, badge, platform)
            VALUES ($1, $2, $3, NULLIF($5, ''), coalesce($6::integer, 0), coalesce($9::text, 'ios'))
            ON CONFLICT (app_id, token) DO UPDATE SET
                platform = EXCLUDED.platform,
                environment = EXCLUDED.environment,
                alias = CASE WHEN $4::boolean THEN EXCLUDED.alias ELSE d.alias END,
                badge = coalesce($6::integer, d.badge),
                registered_at = now(),
                last_seen_at = now(),
                reactivated_at = CASE WHEN d.active THEN d.reactivated_at ELSE now() END,
                active = true
            RETURNING d.id, d.registration_id
        ), dropped AS (
            DELETE FROM device_tags t USING device
            WHERE $7::boolean AND t.device_id = device.id AND NOT (t.tag = ANY ($8::text[]))
        ), added AS (
            INSERT INTO device_tags (app_id, tag, device_id)
            SELECT $1, tag, device.id FROM device, unnest($8::text[]) AS tag WHERE $7::boolean
            ON CONFLICT DO NOTHING
        )
        SELECT \(RegistrationID.sql("registration_id")) AS rid FROM device
        """)

    /// `register` for many registrations at once (`RegistrationBatch`): a row per registration
    /// from the arrays $1 app, $2 token, $3 environment, $4 alias given, $5 alias ("" removes),
    /// $6 badge (NULL keeps), $7 tags given, $8 tags (each an array literal), $9 platform,
    /// with no (app, token) twice; answered with each row's place (`ord`, from 1) and its
    /// registration id. What a row keeps (alias, badge) is read back from its input row by
    /// (app, token): `EXCLUDED` holds only the values a new device would get.
    static let registerBatch = SQLStatement("pushrelay_register_devices", """
        WITH input AS MATERIALIZED (
            SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::boolean[], $5::text[], $6::integer[], $7::boolean[],
                                 $8::text[], $9::text[])
                WITH ORDINALITY AS p(app_id, token, environment, alias_given, alias, badge, tags_given, tags, platform, ord)
        ), device AS (
            INSERT INTO devices AS d (app_id, token, environment, alias, badge, platform)
            SELECT p.app_id, p.token, p.environment, NULLIF(p.alias, ''), coalesce(p.badge, 0), coalesce(p.platform, 'ios')
            FROM input p ORDER BY p.ord
            ON CONFLICT (app_id, token) DO UPDATE SET
                platform = EXCLUDED.platform,
                environment = EXCLUDED.environment,
                (alias, badge) = (SELECT CASE WHEN p.alias_given THEN EXCLUDED.alias ELSE d.alias END, coalesce(p.badge, d.badge)
                                  FROM input p WHERE p.app_id = EXCLUDED.app_id AND p.token = EXCLUDED.token),
                registered_at = now(),
                last_seen_at = now(),
                reactivated_at = CASE WHEN d.active THEN d.reactivated_at ELSE now() END,
                active = true
            RETURNING d.id, d.registration_id, d.app_id, d.token
        ), registered AS (
            SELECT device.id, device.registration_id, p.app_id, p.ord, p.tags_given, p.tags::text[] AS tags
            FROM device JOIN input p ON p.app_id = device.app_id AND p.token = device.token
        ), dropped AS (
            DELETE FROM device_tags t USING registered r
            WHERE r.tags_given AND t.device_id = r.id AND NOT (t.tag = ANY (r.tags))
        ), added AS (
            INSERT INTO device_tags (app_id, tag, device_id)
            SELECT r.app_id, tag, r.id FROM registered r, unnest(r.tags) AS tag WHERE r.tags_given
            ON CONFLICT DO NOTHING
        )
        SELECT r.ord, \(RegistrationID.sql("r.registration_id")) AS rid FROM registered r
        """)

    /// $1 app, $2 registration id (uuid).
    /// $1 app, $2 registration id (uuid), $3 a VoIP token: the iOS device's VoIP token, taken
    /// from any other device of the app that held it (the phone moved it: reinstalled, or the
    /// app reset its registration). Returns the device's id; no row for an unknown or Android
    /// device. The index devices_voip_token finds the other holder.
    static let registerVoIP = SQLStatement("pushrelay_device_register_voip", """
        WITH moved AS (
            UPDATE devices SET voip_token = NULL
            WHERE app_id = $1 AND voip_token = $3::text AND registration_id <> $2::uuid
        )
        UPDATE devices SET voip_token = $3::text, voip_registered_at = now(), last_seen_at = now()
        WHERE app_id = $1 AND registration_id = $2::uuid AND platform = 'ios'
        RETURNING id
        """)

    /// `registerVoIP` for another kind $4 (`device_push_tokens`): the iOS device's token of
    /// that kind, taken from any other device of the app that held it (index
    /// device_push_tokens_token). Returns the device's id; no row for an unknown or Android device.
    static let registerPushToken = SQLStatement("pushrelay_device_register_push_token", """
        WITH device AS (
            SELECT id FROM devices WHERE app_id = $1 AND registration_id = $2::uuid AND platform = 'ios'
        ), moved AS (
            DELETE FROM device_push_tokens k
            WHERE k.app_id = $1 AND k.kind = $4::text AND k.token = $3::text AND k.device_id <> (SELECT id FROM device)
        ), stored AS (
            INSERT INTO device_push_tokens (app_id, device_id, kind, token)
            SELECT $1, id, $4::text, $3::text FROM device
            ON CONFLICT (app_id, kind, device_id) DO UPDATE SET token = excluded.token, registered_at = now()
            RETURNING device_id
        )
        UPDATE devices d SET last_seen_at = now() FROM stored s WHERE d.app_id = $1 AND d.id = s.device_id
        RETURNING d.id
        """)

    static let find = SQLStatement("pushrelay_device_find",
        "SELECT id, alias, mobile FROM devices WHERE app_id = $1 AND registration_id = $2::uuid")

    /// $1 app, $2 registration id (uuid), $3 alias given, $4 alias ("" removes), $5 mobile
    /// given, $6 mobile ("" removes), $7 badge (NULL keeps).
    static let update = SQLStatement("pushrelay_device_update", """
        UPDATE devices SET
            alias = CASE WHEN $3::boolean THEN NULLIF($4, '') ELSE alias END,
            mobile = CASE WHEN $5::boolean THEN NULLIF($6, '') ELSE mobile END,
            badge = coalesce($7::integer, badge)
        WHERE app_id = $1 AND registration_id = $2::uuid
        RETURNING id
        """)

    /// $1 app, $2 registration ids (uuid[]): the device ids of those that are the app's.
    static let resolve = SQLStatement("pushrelay_device_resolve", """
        SELECT id, \(RegistrationID.sql("registration_id")) AS rid FROM devices
        WHERE app_id = $1 AND registration_id = ANY ($2::uuid[])
        """)

    /// Online status: $1 app, $2 device ids (bigint[]). The span conditions are written as
    /// the index `delivery_spans_app_ids` is defined. The inner OFFSET 0 keeps the plan a walk
    /// down the app's spans that cover the device, newest first, stopped by the LIMIT at the
    /// first that holds its id, rather than reading every covering span's ids; the outer one
    /// has `seen` computed once, not once for each use.
    static let status = SQLStatement("pushrelay_device_status", """
        SELECT rid, seen > now() - interval '10 minutes' AS online,
               to_char(seen AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS last_seen
        FROM (SELECT \(RegistrationID.sql("d.registration_id")) AS rid,
                     greatest(d.last_seen_at, (
                         SELECT s.at
                         FROM (SELECT s.at, s.device_ids FROM delivery_spans s
                               WHERE int8range(s.app_id, s.app_id, '[]') @> $1::bigint AND int8range(s.lo, s.hi, '[]') @> d.id
                               ORDER BY s.at DESC OFFSET 0) s
                         WHERE d.id = ANY (s.device_ids)
                         LIMIT 1)) AS seen
              FROM devices d WHERE d.app_id = $1 AND d.id = ANY ($2::bigint[]) OFFSET 0) device
        """)

    /// Marks a token dead: $1 app, $2 token, $3 reason, $4 APNs' timestamp (NULL: none),
    /// $5 when the refused notification was sent; not when it was registered again since.
    static let invalidate = SQLStatement("pushrelay_device_invalidate", """
        UPDATE devices SET active = false, invalidated_at = now(), invalidation_reason = $3, apns_invalidated_at = $4::timestamptz
        WHERE app_id = $1 AND token = $2 AND active AND registered_at < coalesce($4::timestamptz, $5::timestamptz)
        """)

    /// $1 app, $2 device ids (bigint[]), $3 the badge to set (NULL: add), $4 the badge to
    /// add, $5 the largest badge.
    static let applyBadge = SQLStatement("pushrelay_device_apply_badge", """
        UPDATE devices SET badge = coalesce($3::integer, least($5::integer, greatest(0, badge + $4::integer)))
        WHERE app_id = $1 AND id = ANY ($2::bigint[])
        RETURNING id, badge
        """)

    // MARK: A device's tags ($1 the device's id)

    static let tagsOfDevice = SQLStatement("pushrelay_device_tags", "SELECT tag FROM device_tags WHERE device_id = $1 ORDER BY tag")

    static let clearTags = SQLStatement("pushrelay_device_clear_tags", "DELETE FROM device_tags WHERE device_id = $1")

    /// $2 the tags to remove (text[]).
    static let removeTags = SQLStatement("pushrelay_device_remove_tags", "DELETE FROM device_tags WHERE device_id = $1 AND tag = ANY ($2::text[])")

    /// $1 app, $2 the tags to add (text[]), $3 the device's id.
    static let addTags = SQLStatement("pushrelay_device_add_tags", """
        INSERT INTO device_tags (app_id, tag, device_id) SELECT $1, unnest($2::text[]), $3
        ON CONFLICT DO NOTHING
        """)

    static let countTags = SQLStatement("pushrelay_device_count_tags", "SELECT count(*) AS n FROM device_tags WHERE device_id = $1")

    // MARK: The app's tags ($1 app, $2 tag)

    /// Every tag the app uses, sorted: a skip scan over the tag index (one probe per tag,
    /// not one row per tagged device).
    static let appTags = SQLStatement("pushrelay_tags", """
        WITH RECURSIVE t AS (
            (SELECT tag FROM device_tags WHERE app_id = $1 ORDER BY tag LIMIT 1)
            UNION ALL
            SELECT (SELECT tag FROM device_tags WHERE app_id = $1 AND tag > t.tag ORDER BY tag LIMIT 1)
            FROM t WHERE t.tag IS NOT NULL
        )
        SELECT tag FROM t WHERE tag IS NOT NULL
        """)

    /// $2 registration id (uuid), $3 tag: no row when the app has no such device.
    static let hasTag = SQLStatement("pushrelay_tag_has", """
        SELECT EXISTS (SELECT 1 FROM device_tags t WHERE t.app_id = $1 AND t.tag = $3 AND t.device_id = d.id) AS result
        FROM devices d WHERE d.app_id = $1 AND d.registration_id = $2::uuid
        """)

    /// $3 device ids (bigint[]).
    static let untagDevices = SQLStatement("pushrelay_tag_remove",
        "DELETE FROM device_tags WHERE app_id = $1 AND tag = $2 AND device_id = ANY ($3::bigint[])")

    /// $3 device ids (bigint[]).
    static let tagDevices = SQLStatement("pushrelay_tag_add", """
        INSERT INTO device_tags (app_id, tag, device_id) SELECT $1, $2, unnest($3::bigint[])
        ON CONFLICT DO NOTHING
        """)

    /// The first of the devices ($2, bigint[]) with more than $3 tags: $1 app.
    static let overTagged = SQLStatement("pushrelay_tag_over_limit", """
        SELECT \(RegistrationID.sql("d.registration_id")) AS rid FROM devices d
        WHERE d.app_id = $1 AND d.id = ANY ($2::bigint[])
          AND (SELECT count(*) FROM device_tags t WHERE t.device_id = d.id) > $3
        LIMIT 1
        """)

    /// $3 the platforms whose devices lose the tag (text[]).
    static let deleteTag = SQLStatement("pushrelay_tag_delete", """
        DELETE FROM device_tags t USING devices d
        WHERE t.app_id = $1 AND t.tag = $2 AND d.app_id = t.app_id AND d.id = t.device_id AND d.platform = ANY ($3::text[])
        """)

    // MARK: Aliases ($1 app, $2 alias)

    /// $3 the platforms (text[]).
    static let aliasDevices = SQLStatement("pushrelay_alias_devices", """
        SELECT \(RegistrationID.sql("registration_id")) AS rid FROM devices
        WHERE app_id = $1 AND alias = $2 AND platform = ANY ($3::text[]) ORDER BY id
        """)

    /// $3 the platforms (text[]).
    static let deleteAlias = SQLStatement("pushrelay_alias_delete",
        "UPDATE devices SET alias = NULL WHERE app_id = $1 AND alias = $2 AND platform = ANY ($3::text[])")

    /// $3 device ids (bigint[]).
    static let removeAlias = SQLStatement("pushrelay_alias_remove",
        "UPDATE devices SET alias = NULL WHERE app_id = $1 AND alias = $2 AND id = ANY ($3::bigint[])")

    static let all = [register, registerBatch, registerVoIP, registerPushToken, find, update, resolve, status, invalidate, applyBadge,
                      tagsOfDevice, clearTags, removeTags, addTags, countTags,
                      appTags, hasTag, untagDevices, tagDevices, overTagged, deleteTag,
                      aliasDevices, deleteAlias, removeAlias]
}
