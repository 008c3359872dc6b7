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
        let query = QueryParameters(query)
        appKey = query.string("app_key")
        since = try query.instant("since")
        until = try query.instant("until")
        // A cursor is the next_cursor of a previous page: a msg_id.
        before = try query.integer("cursor", in: 1...Int64.max)
        limit = try query.integer("limit", in: 1...Self.maxLimit) ?? Self.defaultLimit
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
