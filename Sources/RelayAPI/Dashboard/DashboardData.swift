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
        let rows = if let key {
            try await pool.preparedQuery(DashboardAppStatements.one, [key])
        } else {
            try await pool.preparedQuery(DashboardAppStatements.every)
        }
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

    /// Sent and not delivered per minute over the last hour (every app, or one), oldest first.
    func lastHour(appKey: String?, now: Date) async throws -> [SVGChart.Bar] {
        let window = try ReportWindow(query: ["bucket": "minute"], now: now)
        let stats = try await reports.deliveryStats(window, appKey: appKey)
        var byStart: [Date: (sent: Int, notDelivered: Int)] = [:]
        for point in stats.stats.apps.flatMap(\.points) {
            let counts = point.counts
            let old = byStart[point.start] ?? (0, 0)
            byStart[point.start] = (old.sent + counts.sent, old.notDelivered + counts.failed + counts.invalidated + counts.expired)
        }
        return window.bucketStarts.map { start -> SVGChart.Bar in
            let counts = byStart[start] ?? (0, 0)
            return SVGChart.Bar(label: String(ReportTime.format(start).dropFirst(11).prefix(5)), sent: counts.sent, failed: counts.notDelivered)
        }
    }

    /// Outcomes other than sent, by reason, over the last 24 hours.
    func failuresLastDay(appKey: String?, now: Date) async throws -> [String: Int] {
        let window = try ReportWindow(query: ["bucket": "hour", "since": ReportTime.format(now.addingTimeInterval(-86400))], now: now)
        return try await reports.deliveryStats(window, appKey: appKey).stats.failedByReason
    }
}
