import Foundation
import PostgresStore
import RelayCore

/// A group as the admin API shows it (never its secret's hash).
public struct GroupRecord: Sendable, Equatable, Encodable {
    public var groupKey: String
    public var name: String
    public var appKeys: [String]
    public var createdAt: String
    public var secretRotatedAt: String

    public enum CodingKeys: String, CodingKey {
        case groupKey = "group_key", name, appKeys = "app_keys", createdAt = "created_at", secretRotatedAt = "secret_rotated_at"
    }
}

/// What `/v3/grouppush` and the group report calls check and act on: the group and its apps.
public struct AuthenticatedGroup: Sendable, Equatable {
    public struct Member: Sendable, Equatable {
        public var id: Int64
        public var appKey: String
    }

    public var id: Int64
    public var groupKey: String
    public var apps: [Member]
}

/// The `app_groups` table: a group key and secret over a set of apps (`/v3/grouppush`).
public struct GroupRepository: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Creates a group over apps given by key.
    ///
    /// - Throws: 1008 naming an app key that does not exist.
    public func create(groupKey: String, name: String, secretHash: String, appKeys: [String]) async throws -> GroupRecord {
        try await pool.withConnection { connection in
            try connection.transaction { connection in
                let apps = try connection.preparedQuery(GroupStatements.appsByKey, ["{" + appKeys.joined(separator: ",") + "}"])
                let found = Set(try apps.map { try $0.string("app_key") })
                if let missing = appKeys.first(where: { !found.contains($0) }) {
                    throw JPushError(status: 400, code: 1008, message: "no app with app_key \(InputEcho.quoted(missing))")
                }
                let group = try connection.preparedQuery(GroupStatements.create, [groupKey, name, secretHash])
                guard let groupID = try group.first.map({ Int64(try $0.int("id")) }) else {
                    throw PostgresError.protocolViolation("INSERT returned no row")
                }
                try connection.preparedQuery(GroupStatements.addMembers, [groupID, "{" + appKeys.joined(separator: ",") + "}"])
                guard let row = try connection.preparedQuery(GroupStatements.record, [groupID]).first else {
                    throw PostgresError.protocolViolation("the group just made is gone")
                }
                return try Self.record(row)
            }
        }
    }

    /// Every group, oldest first.
    public func list() async throws -> [GroupRecord] {
        try await pool.preparedQuery(GroupStatements.list).map(Self.record)
    }

    /// Deletes the group and the records of its pushes (their messages stay with their apps).
    public func delete(groupKey: String) async throws -> Bool {
        try await pool.preparedQuery(GroupStatements.delete, [groupKey]).affectedRows == 1
    }

    /// Stores a new secret hash; nil when there is no such group.
    public func replaceSecretHash(groupKey: String, secretHash: String) async throws -> GroupRecord? {
        try await pool.preparedQuery(GroupStatements.replaceSecretHash, [groupKey, secretHash])
            .first.map(Self.record)
    }

    /// The group's secret hash and its apps, or nil when there is no such group.
    public func find(groupKey: String) async throws -> (secretHash: String, group: AuthenticatedGroup)? {
        let rows = try await pool.preparedQuery(GroupStatements.find, [groupKey])
        guard let first = rows.first else { return nil }
        var apps: [AuthenticatedGroup.Member] = []
        for row in rows {
            guard let id = row["app_id"].flatMap(Int64.init), let appKey = row["app_key"] else { continue }
            apps.append(.init(id: id, appKey: appKey))
        }
        return (try first.string("secret_hash"), AuthenticatedGroup(id: Int64(try first.int("id")), groupKey: groupKey, apps: apps))
    }

    private static func record(_ row: PostgresRow) throws -> GroupRecord {
        GroupRecord(groupKey: try row.string("group_key"), name: try row.string("name"),
                    appKeys: row["app_keys"].map { $0.split(separator: ",").map(String.init) } ?? [],
                    createdAt: try row.string("created_at"), secretRotatedAt: try row.string("secret_rotated_at"))
    }
}
