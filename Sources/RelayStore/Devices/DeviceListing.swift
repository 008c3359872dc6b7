import Foundation
import PostgresStore
import RelayCore

/// One page of `GET /admin/v1/apps/{app_key}/devices`: filters, and a keyset cursor (the
/// last device id of the previous page), so a page costs the same at row 10 as at row 10M.
public struct DeviceListing: Sendable, Equatable {
    public static let defaultLimit = 100
    public static let maxLimit = 1000

    public var alias: String?
    public var tag: String?
    public var environment: DeviceEnvironment?
    public var platform: DevicePlatform?
    public var active: Bool?
    public var after: Int64 = 0
    public var limit: Int = defaultLimit

    public init(alias: String? = nil, tag: String? = nil, environment: DeviceEnvironment? = nil, platform: DevicePlatform? = nil,
                active: Bool? = nil, after: Int64 = 0, limit: Int = defaultLimit) {
        self.platform = platform
        self.alias = alias
        self.tag = tag
        self.environment = environment
        self.active = active
        self.after = after
        self.limit = limit
    }

    /// The page's statement and parameters: `$1` app, `$2` cursor, `$3` limit + 1 (to know
    /// whether there is a next page), then one parameter per filter given.
    func statement(appID: Int64) -> (SQLStatement, [(any PostgresBindable)?]) {
        let filters: [(any PostgresBindable)?] = [environment?.rawValue, active, alias, tag, platform?.rawValue]
        return (DeviceListingStatements.page[given: filters.map { $0 != nil }], [appID, after, limit + 1] + filters.filter { $0 != nil })
    }

    /// Runs the page: the devices, and the cursor of the next page (nil on the last).
    public func run(appID: Int64, pool: PostgresPool) async throws -> (devices: [ListedDevice], next: String?) {
        let (statement, parameters) = statement(appID: appID)
        let rows = try await pool.preparedQuery(statement, parameters)
        var devices: [ListedDevice] = []
        var lastID: Int64 = 0
        for row in rows.prefix(limit) {
            lastID = Int64(try row.int("id"))
            devices.append(ListedDevice(
                registrationID: try row.string("registration_id"), platform: try row.string("platform"), token: try row.string("token"),
                environment: row["environment"], alias: row["alias"], mobile: row["mobile"],
                badge: try row.int("badge"), active: try row.bool("active"),
                tags: try JSONDecoder().decode([String].self, from: Data(try row.string("tags").utf8)),
                createdAt: try row.string("created_at"), registeredAt: try row.string("registered_at"),
                lastSeenAt: try row.string("last_seen_at"), invalidatedAt: row["invalidated_at"],
                invalidationReason: row["invalidation_reason"], apnsInvalidatedAt: row["apns_invalidated_at"],
                reactivatedAt: row["reactivated_at"],
                pushTokens: try JSONDecoder().decode([ListedPushToken].self, from: Data(try row.string("push_tokens").utf8))))
        }
        return (devices, rows.count > limit ? String(lastID) : nil)
    }
}

/// A device as the admin listing shows it: what is not known or did not happen is nil.
public struct ListedDevice: Sendable, Equatable {
    public var registrationID, platform, token: String
    /// nil for an Android device.
    public var environment: String?
    public var alias, mobile: String?
    public var badge: Int
    public var active: Bool
    public var tags: [String]
    public var createdAt, registeredAt, lastSeenAt: String
    public var invalidatedAt, invalidationReason, apnsInvalidatedAt, reactivatedAt: String?
    /// The device's tokens of other kinds (VoIP, location, complication, File Provider, Push
    /// to Talk), by kind; shown like `token`.
    public var pushTokens: [ListedPushToken] = []
}

/// One of a listed device's tokens of another kind (`PushTokenKind`).
public struct ListedPushToken: Sendable, Equatable, Codable {
    public var kind, token: String
    public var registeredAt: String

    enum CodingKeys: String, CodingKey {
        case kind, token
        case registeredAt = "registered_at"
    }
}
