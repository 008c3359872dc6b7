import Foundation
import PostgresStore

/// What the dashboard's pages show, read from the same counters and rollups as the admin
/// reports; device counts come from the registry's fan-out index (active devices only).
struct DashboardData: Sendable {
    let pool: PostgresPool
    let reports: AdminReportRepository

    struct App: Sendable {
        var key: String
        var name: String
        var createdAt: String
        var auth: String?
        var topic: String?
        var certificateExpiresAt: Date?
        var brokenReason: String?
        var production: Int
        var sandbox: Int

        func credential(now: Date) -> CredentialStatus {
            CredentialStatus.of(auth: auth, certificateExpiresAt: certificateExpiresAt, brokenReason: brokenReason, now: now)
        }
    }

    /// Every app (or the one with `key`), with its credential and active devices per environment.
    func apps(key: String? = nil) async throws -> [App] {
        let rows = try await pool.query("""
            SELECT a.app_key, a.name, \(isoTimestampSQL("a.created_at")) AS created_at, c.auth, c.topic, c.broken_reason,
                   EXTRACT(EPOCH FROM c.certificate_expires_at) AS certificate_expires_at,
                   (SELECT count(*) FROM devices d WHERE d.app_id = a.id AND d.environment = 'production' AND d.active) AS production,
                   (SELECT count(*) FROM devices d WHERE d.app_id = a.id AND d.environment = 'sandbox' AND d.active) AS sandbox
            FROM apps a LEFT JOIN apns_credentials c ON c.app_id = a.id
            WHERE $1::text IS NULL OR a.app_key = $1
            ORDER BY a.name, a.app_key
            """, [key])
        return try rows.map { row in
            App(key: try row.string("app_key"), name: try row.string("name"), createdAt: try row.string("created_at"),
                auth: row["auth"], topic: row["topic"],
                certificateExpiresAt: row["certificate_expires_at"].flatMap(Double.init).map { Date(timeIntervalSince1970: $0) },
                brokenReason: row["broken_reason"], production: try row.int("production"), sandbox: try row.int("sandbox"))
        }
    }

    /// Sent and not delivered per minute over the last hour (every app, or one), oldest first.
    func lastHour(appKey: String?, now: Date) async throws -> (bars: [SVGChart.Bar], stats: [String: Any]) {
        let window = try ReportWindow(query: ["bucket": "minute"], now: now)
        let stats = try await reports.stats(window, appKey: appKey)
        var byTime: [String: (Int, Int)] = [:]
        for app in stats["apps"] as? [[String: Any]] ?? [] {
            for point in app["points"] as? [[String: Any]] ?? [] {
                let time = point["time"] as? String ?? ""
                let notDelivered = ["failed", "invalidated", "expired"].reduce(0) { $0 + (point[$1] as? Int ?? 0) }
                let old = byTime[time] ?? (0, 0)
                byTime[time] = (old.0 + (point["sent"] as? Int ?? 0), old.1 + notDelivered)
            }
        }
        let bars = window.bucketStarts.map { start -> SVGChart.Bar in
            let key = ReportTime.format(start)
            let counts = byTime[key] ?? (0, 0)
            return SVGChart.Bar(label: String(key.dropFirst(11).prefix(5)), sent: counts.0, failed: counts.1)
        }
        return (bars, stats)
    }

    /// Outcomes other than sent, by reason, over the last 24 hours.
    func failuresLastDay(appKey: String?, now: Date) async throws -> [String: Int] {
        let window = try ReportWindow(query: ["bucket": "hour", "since": String(Int(now.timeIntervalSince1970) - 86400)], now: now)
        return try await reports.stats(window, appKey: appKey)["failed_by_reason"] as? [String: Int] ?? [:]
    }
}
