import PostgresStore
import RelayCore

/// An app as the admin API shows it.
public struct AppRecord: Sendable, Equatable {
    public var appKey: String
    public var name: String
    public var createdAt: String
    public var secretRotatedAt: String
    /// Its devices may set their own alias and tags (`PATCH /client/v1/devices/{rid}`).
    public var clientMaySetAlias: Bool
}

/// The `apps` table.
public struct AppRepository: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    private static func record(_ row: PostgresRow) throws -> AppRecord {
        AppRecord(appKey: try row.string("app_key"), name: try row.string("name"),
                  createdAt: try row.string("created_at"), secretRotatedAt: try row.string("secret_rotated_at"),
                  clientMaySetAlias: try row.bool("client_may_set_alias"))
    }

    public func create(appKey: String, name: String, secretHash: String) async throws -> AppRecord {
        let rows = try await pool.preparedQuery(AppStatements.create, [appKey, name, secretHash])
        guard let row = rows.first else { throw PostgresError.protocolViolation("INSERT returned no row") }
        return try Self.record(row)
    }

    public func list() async throws -> [AppRecord] {
        try await pool.preparedQuery(AppStatements.list).map(Self.record)
    }

    public func find(appKey: String) async throws -> AppRecord? {
        try await pool.preparedQuery(AppStatements.find, [appKey]).first.map(Self.record)
    }

    /// Deletes the app and everything that belongs to it (`AppStatements.delete`).
    public func delete(appKey: String) async throws -> Bool {
        try await pool.withConnection { connection in
            try connection.transaction { connection in
                try connection.preparedQuery(AppStatements.deleteDeliveries, [appKey])
                try connection.preparedQuery(AppStatements.deleteSpans, [appKey])
                try connection.preparedQuery(AppStatements.deleteReceipts, [appKey])
                return try connection.preparedQuery(AppStatements.delete, [appKey]).affectedRows == 1
            }
        }
    }

    /// Nil when the app does not exist.
    public func setClientMaySetAlias(appKey: String, _ allowed: Bool) async throws -> AppRecord? {
        try await pool.preparedQuery(AppStatements.setClientMaySetAlias, [appKey, allowed]).first.map(Self.record)
    }

    public func replaceSecretHash(appKey: String, secretHash: String) async throws -> AppRecord? {
        try await pool.preparedQuery(AppStatements.replaceSecretHash, [appKey, secretHash]).first.map(Self.record)
    }
}
