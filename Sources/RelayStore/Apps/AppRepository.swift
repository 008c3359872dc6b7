import PostgresStore
import RelayCore

/// An app as the admin API shows it.
public struct AppRecord: Sendable, Equatable {
    public var appKey: String
    public var name: String
    public var createdAt: String
    public var secretRotatedAt: String
}

/// The `apps` table.
public struct AppRepository: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    private static let columns = "app_key, name, \(isoTimestampSQL("created_at")) AS created_at, \(isoTimestampSQL("secret_rotated_at")) AS secret_rotated_at"

    private static func record(_ row: PostgresRow) throws -> AppRecord {
        AppRecord(appKey: try row.string("app_key"), name: try row.string("name"),
                  createdAt: try row.string("created_at"), secretRotatedAt: try row.string("secret_rotated_at"))
    }

    public func create(appKey: String, name: String, secretHash: String) async throws -> AppRecord {
        let rows = try await pool.query(
            "INSERT INTO apps (app_key, name, secret_hash) VALUES ($1, $2, $3) RETURNING \(Self.columns)",
            [appKey, name, secretHash])
        guard let row = rows.first else { throw PostgresError.protocolViolation("INSERT returned no row") }
        return try Self.record(row)
    }

    public func list() async throws -> [AppRecord] {
        try await pool.query("SELECT \(Self.columns) FROM apps ORDER BY id").map(Self.record)
    }

    public func find(appKey: String) async throws -> AppRecord? {
        try await pool.query("SELECT \(Self.columns) FROM apps WHERE app_key = $1", [appKey]).first.map(Self.record)
    }

    /// Deletes the app and everything that belongs to it: its messages' deliveries and
    /// delivery spans here (they carry no foreign key, migrations 0021 and 0023), the rest
    /// through foreign keys.
    public func delete(appKey: String) async throws -> Bool {
        try await pool.withConnection { connection in
            try connection.transaction { connection in
                try connection.query("""
                    DELETE FROM deliveries WHERE message_id IN
                        (SELECT m.id FROM messages m JOIN apps a ON a.id = m.app_id WHERE a.app_key = $1)
                    """, [appKey])
                try connection.query("DELETE FROM delivery_spans WHERE app_id = (SELECT id FROM apps WHERE app_key = $1)", [appKey])
                return try connection.query("DELETE FROM apps WHERE app_key = $1", [appKey]).affectedRows == 1
            }
        }
    }

    public func replaceSecretHash(appKey: String, secretHash: String) async throws -> AppRecord? {
        try await pool.query(
            "UPDATE apps SET secret_hash = $2, secret_rotated_at = now() WHERE app_key = $1 RETURNING \(Self.columns)",
            [appKey, secretHash]).first.map(Self.record)
    }
}
