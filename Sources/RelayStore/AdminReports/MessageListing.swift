import Foundation
import PostgresStore

/// One page of `GET /admin/v1/messages`: newest first across apps (or one app), filtered by
/// creation time, paged by keyset on the msg_id (time-ordered), so page 1000 costs what
/// page 1 does.
public struct MessageListing: Sendable, Equatable {
    public static let defaultLimit = 50
    public static let maxLimit = 500

    public var appKey: String?
    public var since: Date?
    public var until: Date?
    /// The `next_cursor` of the previous page: only older messages.
    public var before: Int64?
    public var limit = defaultLimit

    public init(appKey: String? = nil, since: Date? = nil, until: Date? = nil, before: Int64? = nil, limit: Int = defaultLimit) {
        self.appKey = appKey
        self.since = since
        self.until = until
        self.before = before
        self.limit = limit
    }

    /// The page's statement: `$1` limit + 1 (to know whether there is a next page), then one
    /// parameter per filter given.
    func statement(appID: Int64?) -> (SQLStatement, [(any PostgresBindable)?]) {
        let parameters: [(any PostgresBindable)?] = [limit + 1] + [appID, before].compactMap { $0 } + [since, until].compactMap { $0 }
        return (MessageListingStatements.page[given: [appID != nil, before != nil, since != nil, until != nil]], parameters)
    }
}
