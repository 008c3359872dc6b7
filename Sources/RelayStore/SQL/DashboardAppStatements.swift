import PostgresStore

/// The apps as the dashboard's pages show them: each with its APNs credential per
/// environment, its FCM credential, its active devices per environment (iOS) and on Android,
/// and its tokens of other kinds (VoIP, location, …) by kind, by name.
enum DashboardAppStatements {
    private static let columns = """
        SELECT a.app_key, a.name, \(isoTimestampSQL("a.created_at")) AS created_at,
               p.auth AS production_auth, p.topic AS production_topic, p.broken_reason AS production_broken_reason,
               EXTRACT(EPOCH FROM p.certificate_expires_at) AS production_certificate_expires_at,
               s.auth AS sandbox_auth, s.topic AS sandbox_topic, s.broken_reason AS sandbox_broken_reason,
               EXTRACT(EPOCH FROM s.certificate_expires_at) AS sandbox_certificate_expires_at,
               (SELECT count(*) FROM devices d WHERE d.app_id = a.id AND d.environment = 'production' AND d.active) AS production,
               (SELECT count(*) FROM devices d WHERE d.app_id = a.id AND d.environment = 'sandbox' AND d.active) AS sandbox,
               (SELECT count(*) FROM devices d WHERE d.app_id = a.id AND d.platform = 'android' AND d.active) AS android,
               (SELECT count(*) FROM devices d WHERE d.app_id = a.id AND d.voip_token IS NOT NULL AND d.active) AS voip_tokens,
               (SELECT coalesce(json_object_agg(k.kind, k.n), '{}')::text
                FROM (SELECT t.kind, count(*) AS n FROM device_push_tokens t WHERE t.app_id = a.id GROUP BY t.kind) k) AS push_tokens,
               f.project_id AS fcm_project_id, f.broken_reason AS fcm_broken_reason
        FROM apps a
        LEFT JOIN apns_credentials p ON p.app_id = a.id AND p.environment = 'production'
        LEFT JOIN apns_credentials s ON s.app_id = a.id AND s.environment = 'sandbox'
        LEFT JOIN fcm_credentials f ON f.app_id = a.id
        """

    /// Every app.
    static let every = SQLStatement("pushrelay_dashboard_apps", """
        \(columns)
        ORDER BY a.name, a.app_key
        """)

    /// The app with key $1.
    static let one = SQLStatement("pushrelay_dashboard_app", """
        \(columns)
        WHERE a.app_key = $1
        ORDER BY a.name, a.app_key
        """)

    static let all = [every, one]
}
