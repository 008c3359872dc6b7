import PostgresStore

/// A message as the admin listing and the dashboard show it: counters, state, progress and
/// timing, with its app.
public struct MessageSummary: Sendable, Equatable {
    public var counters: MessageCounters
    public var appKey, appName, lane, environment: String
    /// Seconds since the message was accepted, as the database saw it when read.
    public var ageSeconds: Double?

    public init(counters: MessageCounters, appKey: String, appName: String, lane: String, environment: String, ageSeconds: Double? = nil) {
        self.counters = counters
        self.appKey = appKey
        self.appName = appName
        self.lane = lane
        self.environment = environment
        self.ageSeconds = ageSeconds
    }

    /// Share of the audience with an outcome: what a progress bar shows.
    public var progress: Double {
        guard counters.target > 0 else { return counters.state == .done ? 1 : 0 }
        return Double(counters.target - counters.pending) / Double(counters.target)
    }

    /// Failed, invalidated and expired: what APNs did not accept.
    public var notDelivered: Int {
        counters.failed + counters.invalidated + counters.expired
    }

    /// The columns of a summary (`m` messages, `a` apps, `rc` the receipt counters joined by
    /// `receiptJoin`).
    public static let columns = """
        m.id, a.app_key, a.name AS app_name, m.state, m.lane, m.environment, m.target_count, m.sent_count, m.failed_count,
        m.invalidated_count, m.expired_count, m.retry_count, m.android_target_count, m.android_sent_count,
        \(MessageCounters.receiptColumns("rc")),
        \(isoTimestampSQL("m.created_at")) AS created_at,
        \(isoTimestampSQL("m.first_sent_at")) AS first_sent_at,
        \(isoTimestampSQL("m.last_sent_at")) AS last_sent_at,
        \(isoTimestampSQL("m.finished_at")) AS finished_at,
        round(EXTRACT(EPOCH FROM m.finished_at - m.created_at), 3) AS duration_seconds,
        round(EXTRACT(EPOCH FROM now() - m.created_at), 3) AS age_seconds
        """

    /// What a statement selecting `columns` joins to `m` for the receipt counters.
    public static let receiptJoin = MessageCounters.receiptJoin("m", as: "rc")

    /// Reads a row of `columns`.
    public init(row: PostgresRow) throws {
        self.init(counters: try MessageCounters(row: row), appKey: try row.string("app_key"), appName: try row.string("app_name"),
                  lane: try row.string("lane"), environment: try row.string("environment"),
                  ageSeconds: row["age_seconds"].flatMap(Double.init))
    }
}
