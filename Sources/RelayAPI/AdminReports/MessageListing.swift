import Foundation
import PostgresStore
import RelayCore

/// One page of `GET /admin/v1/messages`: newest first across apps (or one app), filtered by
/// creation time, paged by keyset on the msg_id (time-ordered), so page 1000 costs what
/// page 1 does.
struct MessageListing: Sendable, Equatable {
    static let defaultLimit = 50
    static let maxLimit = 500

    var appKey: String?
    var since: Date?
    var until: Date?
    /// The `next_cursor` of the previous page: only older messages.
    var before: Int64?
    var limit = defaultLimit

    /// Reads `app_key`, `since`, `until`, `cursor` and `limit`; every bad value is a 400 that names it.
    init(query: [String: String]) throws(JPushError) {
        func value(_ name: String) -> String? { query[name].flatMap { $0.isEmpty ? nil : $0 } }
        appKey = value("app_key")
        if let raw = value("since") {
            guard let date = ReportTime.parse(raw) else { throw JPushError.illegalValue("since must be Unix seconds or ISO 8601, got \"\(raw)\"") }
            since = date
        }
        if let raw = value("until") {
            guard let date = ReportTime.parse(raw) else { throw JPushError.illegalValue("until must be Unix seconds or ISO 8601, got \"\(raw)\"") }
            until = date
        }
        if let raw = value("cursor") {
            guard let cursor = Int64(raw), cursor > 0 else { throw JPushError.illegalValue("cursor must be the next_cursor of a previous page, got \"\(raw)\"") }
            before = cursor
        }
        if let raw = value("limit") {
            guard let limit = Int(raw), (1...Self.maxLimit).contains(limit) else {
                throw JPushError.illegalValue("limit must be a whole number from 1 to \(Self.maxLimit), got \"\(raw)\"")
            }
            self.limit = limit
        }
    }

    /// The page's SQL: `$1` limit + 1 (to know whether there is a next page), then one
    /// parameter per filter. An app filter uses `messages_app (app_id, id DESC)`.
    func sql(appID: Int64?) -> (String, [(any PostgresBindable)?]) {
        var conditions: [String] = []
        var parameters: [(any PostgresBindable)?] = [limit + 1]
        func add(_ condition: String, _ value: any PostgresBindable) {
            parameters.append(value)
            conditions.append(condition.replacingOccurrences(of: "$?", with: "$\(parameters.count)"))
        }
        if let appID { add("m.app_id = $?", appID) }
        if let before { add("m.id < $?", before) }
        if let since { add("m.created_at >= $?", since) }
        if let until { add("m.created_at < $?", until) }
        let sql = """
            SELECT \(AdminReportRepository.messageColumns)
            FROM messages m JOIN apps a ON a.id = m.app_id
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY m.id DESC LIMIT $1
            """
        return (sql, parameters)
    }
}
