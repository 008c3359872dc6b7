import Foundation
import PostgresStore
import RelayStore

/// What the dashboard's pages show, read from the same counters and rollups as the admin
/// reports; device counts come from the registry's fan-out index (active devices only).
struct DashboardData: Sendable {
    let pool: PostgresPool
    let reports: AdminReportRepository

    struct App: Sendable {
        var key: String
        var name: String
        var createdAt: String
        var sandboxCredential: Credential?
        var productionCredential: Credential?
        var production: Int
        var sandbox: Int

        /// One environment's APNs credential, as the pages show it.
        struct Credential: Sendable {
            var auth: String
            var topic: String
            var certificateExpiresAt: Date?
            var brokenReason: String?
        }

        /// Each environment's credential (nil: none) and its status, production first.
        func credentials(now: Date) -> [(environment: DeviceEnvironment, credential: Credential?, status: CredentialStatus)] {
            [(DeviceEnvironment.production, productionCredential), (.sandbox, sandboxCredential)].map { environment, credential in
                (environment, credential, CredentialStatus.of(auth: credential?.auth, certificateExpiresAt: credential?.certificateExpiresAt,
                                                               brokenReason: credential?.brokenReason, now: now))
            }
        }
    }

    /// Every app (or the one with `key`), with its credential per environment and active
    /// devices per environment.
    func apps(key: String? = nil) async throws -> [App] {
        let rows = try await pool.query(Self.appsSQL, [key])
        return try rows.map { row in
            func credential(_ prefix: String) throws -> App.Credential? {
                guard let auth = row["\(prefix)_auth"] else { return nil }
                return App.Credential(
                    auth: auth, topic: try row.string("\(prefix)_topic"),
                    certificateExpiresAt: row["\(prefix)_certificate_expires_at"].flatMap(Double.init).map { Date(timeIntervalSince1970: $0) },
                    brokenReason: row["\(prefix)_broken_reason"])
            }
            return App(key: try row.string("app_key"), name: try row.string("name"), createdAt: try row.string("created_at"),
                       sandboxCredential: try credential("sandbox"), productionCredential: try credential("production"),
                       production: try row.int("production"), sandbox: try row.int("sandbox"))
        }
    }

    /// $1 an app key, or NULL for every app.
    static let appsSQL = """
        SELECT a.app_key, a.name, \(isoTimestampSQL("a.created_at")) AS created_at,
               p.auth AS production_auth, p.topic AS production_topic, p.broken_reason AS production_broken_reason,
               EXTRACT(EPOCH FROM p.certificate_expires_at) AS production_certificate_expires_at,
               s.auth AS sandbox_auth, s.topic AS sandbox_topic, s.broken_reason AS sandbox_broken_reason,
               EXTRACT(EPOCH FROM s.certificate_expires_at) AS sandbox_certificate_expires_at,
               (SELECT count(*) FROM devices d WHERE d.app_id = a.id AND d.environment = 'production' AND d.active) AS production,
               (SELECT count(*) FROM devices d WHERE d.app_id = a.id AND d.environment = 'sandbox' AND d.active) AS sandbox
        FROM apps a
        LEFT JOIN apns_credentials p ON p.app_id = a.id AND p.environment = 'production'
        LEFT JOIN apns_credentials s ON s.app_id = a.id AND s.environment = 'sandbox'
        WHERE $1::text IS NULL OR a.app_key = $1
        ORDER BY a.name, a.app_key
        """

    /// Sent and not delivered per minute over the last hour (every app, or one), oldest first.
    func lastHour(appKey: String?, now: Date) async throws -> [SVGChart.Bar] {
        let window = try ReportWindow(query: ["bucket": "minute"], now: now)
        let stats = try await reports.deliveryStats(window, appKey: appKey)
        var byTime: [String: (sent: Int, notDelivered: Int)] = [:]
        for point in stats.apps.flatMap(\.points) {
            let counts = point.counts
            let old = byTime[point.time] ?? (0, 0)
            byTime[point.time] = (old.sent + counts.sent, old.notDelivered + counts.failed + counts.invalidated + counts.expired)
        }
        return window.bucketStarts.map { start -> SVGChart.Bar in
            let key = ReportTime.format(start)
            let counts = byTime[key] ?? (0, 0)
            return SVGChart.Bar(label: String(key.dropFirst(11).prefix(5)), sent: counts.sent, failed: counts.notDelivered)
        }
    }

    /// Outcomes other than sent, by reason, over the last 24 hours.
    func failuresLastDay(appKey: String?, now: Date) async throws -> [String: Int] {
        let window = try ReportWindow(query: ["bucket": "hour", "since": ReportTime.format(now.addingTimeInterval(-86400))], now: now)
        return try await reports.deliveryStats(window, appKey: appKey).failedByReason
    }
}
