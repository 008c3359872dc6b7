import Foundation
import PostgresStore
import PushCore
import RelayCore
import RelayStore

/// Reads the admin reports, across apps, from the pipeline's counters (`messages`,
/// `message_failures`) and the per-minute rollups (`delivery_stats`,
/// `delivery_failure_stats`): never from `deliveries`, so a 10M-delivery message costs what
/// a 10-delivery one does.
struct AdminReportRepository: Sendable {
    let pool: PostgresPool

    /// The columns of a message summary (`m` messages, `a` apps).
    static let messageColumns = """
        m.id, a.app_key, a.name AS app_name, m.state, m.lane, m.environment, m.target_count, m.sent_count, m.failed_count,
        m.invalidated_count, m.expired_count, m.retry_count,
        \(isoTimestampSQL("m.created_at")) AS created_at,
        \(isoTimestampSQL("m.first_sent_at")) AS first_sent_at,
        \(isoTimestampSQL("m.last_sent_at")) AS last_sent_at,
        \(isoTimestampSQL("m.finished_at")) AS finished_at,
        round(EXTRACT(EPOCH FROM m.finished_at - m.created_at), 3) AS duration_seconds,
        round(EXTRACT(EPOCH FROM now() - m.created_at), 3) AS age_seconds
        """

    /// A page of messages, newest first, and the cursor of the next page (nil on the last).
    func messages(_ listing: MessageListing) async throws -> (messages: [MessageSummary], next: String?) {
        var appID: Int64?
        if let appKey = listing.appKey {
            guard let id = try await AppRepository(pool: pool).id(appKey: appKey) else { throw AdminAppRoutes.appNotFound(appKey) }
            appID = id
        }
        let (statement, parameters) = listing.statement(appID: appID)
        let rows = try await pool.preparedQuery(statement, parameters)
        let page = try rows.prefix(listing.limit).map { try Self.summary($0) }
        return (page, rows.count > listing.limit ? page.last?.counters.id.description : nil)
    }

    /// One message's funnel, or nil when there is no such message.
    func funnel(_ id: MessageID) async throws -> MessageFunnel? {
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
        return MessageFunnel(summary: try Self.summary(row), failures: failures, alert: Self.alert(ofBody: try row.string("body")))
    }

    /// Outcomes per bucket and app in the window (sparse: empty buckets are left out), each
    /// app's totals and failures by reason, and the same over every app.
    func deliveryStats(_ window: ReportWindow, appKey: String?) async throws -> DeliveryStatsReport {
        let (rows, failureRows): (PostgresRows, PostgresRows) = try await pool.withConnection { connection in
            if let appKey {
                return (try connection.preparedQuery(AdminReportStatements.statsOneApp, [window.since, window.until, window.bucket.seconds, appKey]),
                        try connection.preparedQuery(AdminReportStatements.failuresOneApp, [window.since, window.until, appKey]))
            }
            return (try connection.preparedQuery(AdminReportStatements.statsEveryApp, [window.since, window.until, window.bucket.seconds]),
                    try connection.preparedQuery(AdminReportStatements.failuresEveryApp, [window.since, window.until]))
        }
        var apps: [String: DeliveryStatsReport.App] = [:]
        var order: [String] = []
        var grand = DeliveryStatsReport.Counts()
        for row in rows {
            let key = try row.string("app_key")
            if apps[key] == nil {
                order.append(key)
                apps[key] = DeliveryStatsReport.App(appKey: key, name: try row.string("name"))
            }
            let counts = DeliveryStatsReport.Counts(
                sent: try row.int("sent"), failed: try row.int("failed"), invalidated: try row.int("invalidated"),
                expired: try row.int("expired"), withdrawn: try row.int("withdrawn"), retries: try row.int("retries"))
            let time = ReportTime.format(Date(timeIntervalSince1970: TimeInterval(try row.int("bucket"))))
            apps[key]?.points.append(DeliveryStatsReport.Point(time: time, counts: counts))
            apps[key]?.totals += counts
            grand += counts
        }
        var allReasons: [String: Int] = [:]
        for row in failureRows {
            let key = try row.string("app_key"), reason = try row.string("reason"), count = try row.int("count")
            allReasons[reason, default: 0] += count
            apps[key]?.failedByReason[reason] = count
        }
        return DeliveryStatsReport(
            since: ReportTime.format(window.since), until: ReportTime.format(window.until), bucket: window.bucket.rawValue,
            apps: order.compactMap { apps[$0] }, totals: grand, failedByReason: allReasons)
    }

    /// A message as the listing shows it, from a row of `messageColumns`.
    static func summary(_ row: PostgresRow) throws -> MessageSummary {
        MessageSummary(counters: try MessageCounters(row: row), appKey: try row.string("app_key"), appName: try row.string("app_name"),
                       lane: try row.string("lane"), environment: try row.string("environment"),
                       ageSeconds: row["age_seconds"].flatMap(Double.init))
    }

    /// The notification's alert text, for people looking at a message: `notification.ios.alert`
    /// or `notification.alert` (a dictionary alert shows its body).
    static func alert(ofBody body: String) -> String? {
        guard case .object(let json)? = try? JSONValue.parse(Array(body.utf8)),
              case .object(let notification)? = json["notification"] else { return nil }
        var alert = notification["alert"]
        if case .object(let ios)? = notification["ios"], let iosAlert = ios["alert"] { alert = iosAlert }
        switch alert {
        case .string(let text)?: return text
        case .object(let dictionary)?:
            guard case .string(let text)? = dictionary["body"] ?? dictionary["title"] else { return nil }
            return text
        default: return nil
        }
    }
}
