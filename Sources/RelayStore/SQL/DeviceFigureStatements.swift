import PostgresStore

/// The statements that read figures about an app's devices rather than devices:
/// `DeviceCounts`, `DeviceActivity` and `DeviceStatistics`.
enum DeviceFigureStatements {
    /// The devices of app key $1, counted per platform, environment (iOS) and state.
    static let counts = SQLStatement("pushrelay_device_counts", """
        SELECT d.platform, d.environment, d.active, count(*) AS n
        FROM devices d JOIN apps a ON a.id = d.app_id
        WHERE a.app_key = $1
        GROUP BY d.platform, d.environment, d.active
        """)

    /// App $1's new and active devices per bucket of the edges $4 (timestamptz[]) from $2 to
    /// $3 and platform; deliveries are looked for in messages accepted at most $5 seconds (the
    /// longest time-to-live) before $2. A delivered device deleted since counts as iOS.
    static let activity = SQLStatement("pushrelay_device_activity", """
        WITH edges AS (SELECT $4::timestamptz[] AS e)
        SELECT 'new' AS kind, width_bucket(created_at, (SELECT e FROM edges)) AS bucket, platform, count(*) AS n
        FROM devices WHERE app_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY 2, 3
        UNION ALL
        SELECT 'active', width_bucket(seen.at, (SELECT e FROM edges)), coalesce(d.platform, 'ios'), count(DISTINCT seen.device)
        FROM (SELECT id AS device, last_seen_at AS at FROM devices
              WHERE app_id = $1 AND last_seen_at >= $2 AND last_seen_at < $3
              UNION ALL
              SELECT unnest(s.device_ids), s.at FROM messages m
              JOIN delivery_spans s ON int8range(s.message_id, s.message_id, '[]') @> m.id
              WHERE m.app_id = $1 AND m.id >= pushrelay_message_id_at($2::timestamptz - make_interval(secs => $5))
                AND m.id < pushrelay_message_id_at($3) AND s.at >= $2 AND s.at < $3) seen
        LEFT JOIN devices d ON d.app_id = $1 AND d.id = seen.device
        GROUP BY 2, 3
        """)

    /// Which of the tables $2 (regclass[]) $1 changed rows are a tenth of, or were never analyzed.
    static let stale = SQLStatement("pushrelay_device_statistics_stale", """
        SELECT relname FROM pg_class WHERE oid = ANY ($2::regclass[]) AND (reltuples < 0 OR $1 >= 0.1 * reltuples)
        """)

    static let all = [counts, activity, stale]
}
