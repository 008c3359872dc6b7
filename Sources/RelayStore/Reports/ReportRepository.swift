import PostgresStore
import PushCore
import PushPipeline

/// Reads reports from the counters the pipeline keeps; every statement is a handful of
/// primary-key probes, however many deliveries a message has, and each is scoped to the
/// calling app.
public struct ReportRepository: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The counters of the app's messages among `ids`, in the order of `ids`; ids that are
    /// not the app's are left out.
    public func counters(appID: Int64, ids: [MessageID]) async throws -> [MessageCounters] {
        try await pool.withConnection { try Self.counters(appID: appID, ids: ids, on: $0) }
    }

    /// Counters and failures by reason of the app's messages among `ids`, in their order.
    public func details(appID: Int64, ids: [MessageID]) async throws -> [(MessageCounters, [String: Int])] {
        try await pool.withConnection { connection in
            let known = try Self.counters(appID: appID, ids: ids, on: connection)
            var failures: [MessageID: [String: Int]] = [:]
            if !known.isEmpty {
                for row in try connection.preparedQuery(ReportStatements.failures, [SQLArray.bigint(known.map(\.id.rawValue))]) {
                    guard let id = MessageID(try row.string("message_id")) else { continue }
                    failures[id, default: [:]][try row.string("reason")] = try row.int("count")
                }
            }
            return known.map { ($0, failures[$0.id] ?? [:]) }
        }
    }

    /// The status of each of `registrationIDs` for the app's message; nil when the message
    /// is not the app's (or does not exist).
    public func statuses(appID: Int64, messageID: MessageID, registrationIDs: [String]) async throws -> [String: DeliveryStatus]? {
        try await pool.withConnection { connection in
            let stateRows = try connection.preparedQuery(ReportStatements.messageState, [messageID.rawValue, appID])
            guard let row = stateRows.first else { return nil }
            let state: MessageState = try row.value("state")
            // A malformed id cannot be a device of any app: status 2 without asking.
            let wellFormed = registrationIDs.filter { RegistrationID.uuid($0) != nil }
            var found: [String: (isDevice: Bool, outcome: String?)] = [:]
            if !wellFormed.isEmpty {
                let rows = try connection.preparedQuery(ReportStatements.outcomes, [appID, SQLArray.text(wellFormed), messageID.rawValue])
                for row in rows {
                    found[try row.string("rid")] = (try row.bool("is_device"), row["outcome"])
                }
            }
            var result: [String: DeliveryStatus] = [:]
            for rid in registrationIDs {
                let entry = found[rid]
                result[rid] = DeliveryStatus.of(isDevice: entry?.isDevice ?? false, outcome: entry?.outcome, messageState: state)
            }
            return result
        }
    }

    private static func counters(appID: Int64, ids: [MessageID], on connection: PostgresConnection) throws -> [MessageCounters] {
        var byID: [MessageID: MessageCounters] = [:]
        for row in try connection.preparedQuery(ReportStatements.counters, [appID, SQLArray.bigint(ids.map(\.rawValue))]) {
            let counters = try MessageCounters(row: row)
            byID[counters.id] = counters
        }
        return ids.compactMap { byID[$0] }
    }
}
