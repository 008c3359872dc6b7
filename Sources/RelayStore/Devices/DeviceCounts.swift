import PostgresStore

/// How many devices an app has: iOS per APNs environment, Android, each per state.
public struct DeviceCounts: Sendable, Equatable {
    public struct States: Sendable, Equatable {
        public var active = 0
        public var invalidated = 0

        mutating func add(_ count: Int, active: Bool) {
            if active { self.active += count } else { invalidated += count }
        }
    }

    public var environments: [DeviceEnvironment: States] = [:]
    public var android = States()
    public var total = 0

    public static func read(appKey: String, pool: PostgresPool) async throws -> DeviceCounts {
        let rows = try await pool.preparedQuery(DeviceFigureStatements.counts, [appKey])
        var counts = DeviceCounts()
        for environment in DeviceEnvironment.allCases { counts.environments[environment] = States() }
        for row in rows {
            let count = try row.int("n")
            let active = try row.bool("active")
            counts.total += count
            if try row.string("platform") == DevicePlatform.android.rawValue {
                counts.android.add(count, active: active)
            } else if let environment = row["environment"].flatMap(DeviceEnvironment.init(rawValue:)) {
                counts.environments[environment, default: States()].add(count, active: active)
            }
        }
        return counts
    }
}
