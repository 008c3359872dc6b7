import PostgresStore
import RelayStore

/// How many devices an app has, per environment and state, for `GET /admin/v1/apps/{app_key}`.
enum DeviceCounts {
    /// `{"sandbox":{"active":n,"invalidated":n},"production":{…},"total":n}`.
    static func json(appKey: String, pool: PostgresPool) async throws -> [String: Any] {
        let rows = try await pool.query("""
            SELECT d.environment, d.active, count(*) AS n
            FROM devices d JOIN apps a ON a.id = d.app_id
            WHERE a.app_key = $1
            GROUP BY d.environment, d.active
            """, [appKey])
        var json: [String: Any] = [:]
        var total = 0
        for environment in DeviceEnvironment.allCases {
            var states = ["active": 0, "invalidated": 0]
            for row in rows where row["environment"] == environment.rawValue {
                let count = try row.int("n")
                states[try row.bool("active") ? "active" : "invalidated"] = count
                total += count
            }
            json[environment.rawValue] = states
        }
        json["total"] = total
        return json
    }
}
