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

    /// The page's statement: `$1` limit + 1 (to know whether there is a next page), then one
    /// parameter per filter given.
    func statement(appID: Int64?) -> (SQLStatement, [(any PostgresBindable)?]) {
        let parameters: [(any PostgresBindable)?] = [limit + 1] + [appID, before].compactMap { $0 } + [since, until].compactMap { $0 }
        return (MessageListingStatements.page[given: [appID != nil, before != nil, since != nil, until != nil]], parameters)
    }
}
