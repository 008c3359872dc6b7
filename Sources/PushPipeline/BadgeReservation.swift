import PostgresStore
import PushCore

/// Applies a push's badge (`N`, `"+N"`, `"-N"`) to the stored badges of a chunk's devices in
/// one statement, when the chunk is leased, and hands back each device with the badge it had
/// before: the notification built from that carries exactly the value now stored.
///
/// Storing the badge only after APNs answered let two pushes to one device start from the
/// same stored value (both showing "1"), and let a late answer overwrite a reset made through
/// the device API meanwhile. The row lock of this statement orders them instead. The price:
/// a device whose notification then fails keeps the new stored value.
enum BadgeReservation {
    static func apply(_ change: BadgeChange?, to targets: [ChunkRun.Target], appID: Int64, pool: PostgresPool,
                      priority: PostgresPriority) async throws -> [ChunkRun.Target] {
        guard let change, !targets.isEmpty else { return targets }
        let (setTo, delta): (Int?, Int) = switch change {
        case .set(let value): (value, 0)
        case .add(let delta): (nil, delta)
        }
        let rows = try await pool.preparedQuery(BadgeStatements.reserve, [appID, SQLArray.bigint(targets.map(\.deviceID)), setTo, delta, PushLimits.maxBadge], priority: priority)
        var previous: [Int64: Int] = [:]
        for row in rows { previous[Int64(try row.int("id"))] = try row.int("previous") }
        return targets.map { target in
            var target = target
            if let before = previous[target.deviceID] { target.storedBadge = before }
            return target
        }
    }
}
