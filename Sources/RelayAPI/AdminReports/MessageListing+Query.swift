import RelayCore
import RelayStore

extension MessageListing {
    /// Reads `app_key`, `since`, `until`, `cursor` and `limit`; every bad value is a 400 that names it.
    init(query: [String: String]) throws(JPushError) {
        let query = QueryParameters(query)
        self.init(appKey: query.string("app_key"), since: try query.instant("since"), until: try query.instant("until"),
                  // A cursor is the next_cursor of a previous page: a msg_id.
                  before: try query.integer("cursor", in: 1...Int64.max),
                  limit: try query.integer("limit", in: 1...Self.maxLimit) ?? Self.defaultLimit)
    }
}

extension AdminReportRepository {
    /// The page `listing` asks for; an `app_key` that names no app is a 404.
    func messages(_ listing: MessageListing, apps: AppRepository) async throws -> (messages: [MessageSummary], next: String?) {
        var appID: Int64?
        if let appKey = listing.appKey {
            guard let id = try await apps.id(appKey: appKey) else { throw AdminAppRoutes.appNotFound(appKey) }
            appID = id
        }
        return try await messages(listing, appID: appID)
    }
}
