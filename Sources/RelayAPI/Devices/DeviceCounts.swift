import PostgresStore
import RelayCore
import RelayStore

/// How many devices an app has, per environment and state, for `GET /admin/v1/apps/{app_key}`:
/// `{"sandbox":{"active":n,"invalidated":n},"production":{…},"total":n}`.
struct DeviceCounts: Sendable, Equatable, Encodable {
    struct States: Sendable, Equatable, Encodable {
        var active = 0
        var invalidated = 0
    }

    var environments: [DeviceEnvironment: States] = [:]
    var total = 0

    static func read(appKey: String, pool: PostgresPool) async throws -> DeviceCounts {
        let rows = try await pool.preparedQuery(DeviceFigureStatements.counts, [appKey])
        var counts = DeviceCounts()
        for environment in DeviceEnvironment.allCases {
            var states = States()
            for row in rows where row["environment"] == environment.rawValue {
                let count = try row.int("n")
                if try row.bool("active") { states.active = count } else { states.invalidated = count }
                counts.total += count
            }
            counts.environments[environment] = states
        }
        return counts
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnswerKey.self)
        for (environment, states) in environments { try container.encode(states, forKey: AnswerKey(environment.rawValue)) }
        try container.encode(total, forKey: "total")
    }
}
