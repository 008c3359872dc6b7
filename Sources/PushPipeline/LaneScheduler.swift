/// The two lanes of the queue: targeted pushes (alias, registration_id) never wait behind
/// broadcasts (everyone, tags).
public enum Lane: String, Sendable, Hashable {
    case targeted
    case broadcast
}

/// Decides which lane a worker leases from next, given its chunk slots.
///
/// - `slots` chunks are worked on at once; when all are busy nothing is leased, so a slow
///   APNs slows leasing instead of growing memory.
/// - `reservedForTargeted` of them only ever take targeted chunks: a single-user push finds a
///   free slot even while a broadcast fills every other one.
/// - The broadcast lane is served round-robin over apps (`lastBroadcastApp`): each lease
///   prefers the next app id after the one served last, so one app's huge broadcast does
///   not starve another app's.
public struct LaneScheduler: Sendable, Equatable {
    public let slots: Int
    public let reservedForTargeted: Int
    public private(set) var targetedRunning = 0
    public private(set) var broadcastRunning = 0
    /// The app whose broadcast chunk was leased last.
    public private(set) var lastBroadcastApp: Int64 = 0

    public init(slots: Int, reservedForTargeted: Int) {
        precondition(slots >= 1 && reservedForTargeted >= 0, "a worker needs at least one slot")
        self.slots = slots
        // At least one slot stays open to broadcasts.
        self.reservedForTargeted = min(reservedForTargeted, slots - 1)
    }

    public var running: Int { targetedRunning + broadcastRunning }

    /// The lane to lease from next, or nil when there is no capacity for any lane that may
    /// have work.
    ///
    /// - Parameters:
    ///   - targetedEmpty: the targeted lane had nothing ready at the last look.
    ///   - broadcastEmpty: the same for the broadcast lane.
    public func nextLane(targetedEmpty: Bool, broadcastEmpty: Bool) -> Lane? {
        guard running < slots else { return nil }
        if !targetedEmpty { return .targeted }
        if !broadcastEmpty && broadcastRunning < slots - reservedForTargeted { return .broadcast }
        return nil
    }

    public mutating func started(_ lane: Lane, appID: Int64) {
        switch lane {
        case .targeted: targetedRunning += 1
        case .broadcast:
            broadcastRunning += 1
            lastBroadcastApp = appID
        }
    }

    public mutating func finished(_ lane: Lane) {
        switch lane {
        case .targeted: targetedRunning -= 1
        case .broadcast: broadcastRunning -= 1
        }
    }
}
