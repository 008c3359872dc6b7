import Foundation
import PostgresStore
import RelayCore
import RelayStore

/// One page of `GET /admin/v1/apps/{app_key}/devices`: filters, and a keyset cursor (the
/// last device id of the previous page), so a page costs the same at row 10 as at row 10M.
struct DeviceListing: Sendable, Equatable {
    static let defaultLimit = 100
    static let maxLimit = 1000

    var alias: String?
    var tag: String?
    var environment: DeviceEnvironment?
    var active: Bool?
    var after: Int64 = 0
    var limit: Int = defaultLimit

    init(alias: String? = nil, tag: String? = nil, environment: DeviceEnvironment? = nil, active: Bool? = nil,
         after: Int64 = 0, limit: Int = defaultLimit) {
        self.alias = alias
        self.tag = tag
        self.environment = environment
        self.active = active
        self.after = after
        self.limit = limit
    }

    /// Reads the query string; every bad value is a 400 that names it.
    init(query: [String: String]) throws(JPushError) {
        let query = QueryParameters(query)
        alias = query.string("alias")
        tag = query.string("tag")
        environment = try query.choice("environment", DeviceEnvironment.self)
        active = try query.bool("active")
        // A cursor is the next_cursor of a previous page: a device id.
        after = try query.integer("after", in: 0...Int64.max) ?? 0
        limit = try query.integer("limit", in: 1...Self.maxLimit) ?? Self.defaultLimit
    }

    /// The page's statement and parameters: `$1` app, `$2` cursor, `$3` limit + 1 (to know
    /// whether there is a next page), then one parameter per filter given.
    func statement(appID: Int64) -> (SQLStatement, [(any PostgresBindable)?]) {
        let filters: [(any PostgresBindable)?] = [environment?.rawValue, active, alias, tag]
        return (DeviceListingStatements.page[given: filters.map { $0 != nil }], [appID, after, limit + 1] + filters.filter { $0 != nil })
    }

    /// Runs the page: the devices, and the cursor of the next page (nil on the last).
    func run(appID: Int64, pool: PostgresPool) async throws -> (devices: [ListedDevice], next: String?) {
        let (statement, parameters) = statement(appID: appID)
        let rows = try await pool.preparedQuery(statement, parameters)
        var devices: [ListedDevice] = []
        var lastID: Int64 = 0
        for row in rows.prefix(limit) {
            lastID = Int64(try row.int("id"))
            devices.append(ListedDevice(
                registrationID: try row.string("registration_id"), token: try row.string("token"),
                environment: try row.string("environment"), alias: row["alias"], mobile: row["mobile"],
                badge: try row.int("badge"), active: try row.bool("active"),
                tags: try JSONDecoder().decode([String].self, from: Data(try row.string("tags").utf8)),
                createdAt: try row.string("created_at"), registeredAt: try row.string("registered_at"),
                lastSeenAt: try row.string("last_seen_at"), invalidatedAt: row["invalidated_at"],
                invalidationReason: row["invalidation_reason"], apnsInvalidatedAt: row["apns_invalidated_at"],
                reactivatedAt: row["reactivated_at"]))
        }
        return (devices, rows.count > limit ? String(lastID) : nil)
    }
}

/// A device as the admin listing shows it: what is not known or did not happen is null.
struct ListedDevice: Sendable, Equatable, Encodable {
    var registrationID, token, environment: String
    var alias, mobile: String?
    var badge: Int
    var active: Bool
    var tags: [String]
    var createdAt, registeredAt, lastSeenAt: String
    var invalidatedAt, invalidationReason, apnsInvalidatedAt, reactivatedAt: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnswerKey.self)
        for (key, value) in [("registration_id", registrationID), ("token", token), ("environment", environment),
                             ("created_at", createdAt), ("registered_at", registeredAt), ("last_seen_at", lastSeenAt)] {
            try container.encode(value, forKey: AnswerKey(key))
        }
        for (key, value) in [("alias", alias), ("mobile", mobile), ("invalidated_at", invalidatedAt),
                             ("invalidation_reason", invalidationReason), ("apns_invalidated_at", apnsInvalidatedAt),
                             ("reactivated_at", reactivatedAt)] {
            try container.encode(value, forKey: AnswerKey(key))
        }
        try container.encode(badge, forKey: "badge")
        try container.encode(active, forKey: "active")
        try container.encode(tags, forKey: "tags")
    }
}
