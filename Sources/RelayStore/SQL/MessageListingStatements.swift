import PostgresStore

/// A page of `GET /admin/v1/messages` (`MessageListing`), one text per set of filters
/// given: `$1` limit + 1, then one parameter per filter given, in the order app id, cursor
/// (only smaller msg_ids), since, until. An app filter uses `messages_app (app_id, id DESC)`.
enum MessageListingStatements {
    static let page = ListingVariants("pushrelay_message_listing", filters: ["app", "before", "since", "until"]) { given in
        var conditions: [String] = []
        for (comparison, isGiven) in zip(["m.app_id =", "m.id <", "m.created_at >=", "m.created_at <"], given) where isGiven {
            conditions.append("\(comparison) $\(conditions.count + 2)")
        }
        return """
            SELECT \(MessageSummary.columns)
            FROM messages m JOIN apps a ON a.id = m.app_id \(MessageSummary.receiptJoin)
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY m.id DESC LIMIT $1
            """
    }

    static var all: [SQLStatement] { page.all }
}
