import Foundation
import PostgresStore
import PushCore

/// Reads the admin reports, across apps, from the pipeline's counters (`messages`,
/// `message_failures`) and the per-minute rollups (`delivery_stats`,
/// `delivery_failure_stats`): never from `deliveries`, so a 10M-delivery message costs what
/// a 10-delivery one does.
public struct AdminReportRepository: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// A page of messages, newest first, and the cursor of the next page (nil on the last).
    ///
    /// - Parameter appID: the app `listing.appKey` names, resolved by the caller.
    public func messages(_ listing: MessageListing, appID: Int64?) async throws -> (messages: [MessageSummary], next: String?) {
        let (statement, parameters) = listing.statement(appID: appID)
        let rows = try await pool.preparedQuery(statement, parameters)
        let page = try rows.prefix(listing.limit).map { try MessageSummary(row: $0) }
        return (page, rows.count > listing.limit ? page.last?.counters.id.description : nil)
    }

    /// One message's funnel, or nil when there is no such message.
    public func funnel(_ id: MessageID) async throws -> MessageFunnel? {
        let (rows, failureRows): (PostgresRows, PostgresRows) = try await pool.withConnection { connection in
            let rows = try connection.preparedQuery(AdminReportStatements.message, [id.rawValue])
            let failures = try connection.preparedQuery(AdminReportStatements.messageFailures, [id.rawValue])
            return (rows, failures)
        }
        guard let row = rows.first else { return nil }
        var failures: [String: Int] = [:]
        for failure in failureRows {
            failures[try failure.string("reason")] = try failure.int("count")
        }
        return MessageFunnel(summary: try MessageSummary(row: row), failures: failures,
                             alert: MessageFunnel.alert(ofBody: try row.string("body")))
    }

    /// The outcomes from `since` to `until` in buckets of `bucketSeconds`, over every app or
    /// the one with `appKey`.
    public func deliveryStats(since: Date, until: Date, bucketSeconds: Int64, appKey: String?) async throws -> DeliveryStats {
        let (rows, failureRows): (PostgresRows, PostgresRows) = try await pool.withConnection { connection in
            if let appKey {
                return (try connection.preparedQuery(AdminReportStatements.statsOneApp, [since, until, bucketSeconds, appKey]),
                        try connection.preparedQuery(AdminReportStatements.failuresOneApp, [since, until, appKey]))
            }
            return (try connection.preparedQuery(AdminReportStatements.statsEveryApp, [since, until, bucketSeconds]),
                    try connection.preparedQuery(AdminReportStatements.failuresEveryApp, [since, until]))
        }
        var apps: [String: DeliveryStats.App] = [:]
        var order: [String] = []
        var grand = DeliveryStats.Counts()
        for row in rows {
            let key = try row.string("app_key")
            if apps[key] == nil {
                order.append(key)
                apps[key] = DeliveryStats.App(appKey: key, name: try row.string("name"))
            }
            let counts = DeliveryStats.Counts(
                sent: try row.int("sent"), failed: try row.int("failed"), invalidated: try row.int("invalidated"),
                expired: try row.int("expired"), withdrawn: try row.int("withdrawn"), retries: try row.int("retries"))
            let start = Date(timeIntervalSince1970: TimeInterval(try row.int("bucket")))
            apps[key]?.points.append(DeliveryStats.Point(start: start, counts: counts))
            apps[key]?.totals += counts
            grand += counts
        }
        var allReasons: [String: Int] = [:]
        for row in failureRows {
            let key = try row.string("app_key"), reason = try row.string("reason"), count = try row.int("count")
            allReasons[reason, default: 0] += count
            apps[key]?.failedByReason[reason] = count
        }
        return DeliveryStats(apps: order.compactMap { apps[$0] }, totals: grand, failedByReason: allReasons)
    }
}
