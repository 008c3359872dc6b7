import PostgresStore

/// How many devices an app has, per environment and state.
public struct DeviceCounts: Sendable, Equatable {
    public struct States: Sendable, Equatable {
        public var active = 0
        public var invalidated = 0
    }

    public var environments: [DeviceEnvironment: States] = [:]
    public var total = 0

    public static func read(appKey: String, pool: PostgresPool) async throws -> DeviceCounts {
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
}
