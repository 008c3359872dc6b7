import Foundation
import PostgresStore
import RelayCore

/// The `app_groups` table: a group key and secret over a set of apps (`/v3/grouppush`).
struct GroupRepository: Sendable {
    let pool: PostgresPool

    /// Creates a group over apps given by key.
    ///
    /// - Throws: 1008 naming an app key that does not exist.
    func create(groupKey: String, name: String, secretHash: String, appKeys: [String]) async throws {
        try await pool.withConnection { connection in
            try connection.transaction { connection in
                let apps = try connection.query("SELECT id, app_key FROM apps WHERE app_key = ANY ($1::text[])",
                                                ["{" + appKeys.joined(separator: ",") + "}"])
                let found = Set(try apps.map { try $0.string("app_key") })
                if let missing = appKeys.first(where: { !found.contains($0) }) {
                    throw JPushError(status: 400, code: 1008, message: "no app with app_key \"\(missing)\"")
                }
                let group = try connection.query("""
                    INSERT INTO app_groups (group_key, name, secret_hash) VALUES ($1, $2, $3) RETURNING id
                    """, [groupKey, name, secretHash])
                let groupID = Int64(try group.first!.int("id"))
                try connection.query("""
                    INSERT INTO app_group_members (group_id, app_id) SELECT $1, id FROM apps WHERE app_key = ANY ($2::text[])
                    """, [groupID, "{" + appKeys.joined(separator: ",") + "}"])
            }
        }
    }

    /// The group's secret hash and its apps (id, key), or nil when there is no such group.
    func find(groupKey: String) async throws -> (secretHash: String, apps: [(id: Int64, appKey: String)])? {
        try await pool.withConnection { connection in
            guard let group = try connection.query("SELECT id, secret_hash FROM app_groups WHERE group_key = $1", [groupKey]).first else {
                return nil
            }
            let apps = try connection.query("""
                SELECT a.id, a.app_key FROM app_group_members m JOIN apps a ON a.id = m.app_id WHERE m.group_id = $1 ORDER BY a.id
                """, [Int64(try group.int("id"))])
            return (try group.string("secret_hash"), try apps.map { (Int64(try $0.int("id")), try $0.string("app_key")) })
        }
    }
}
