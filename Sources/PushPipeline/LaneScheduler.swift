/// The two lanes of the queue: targeted pushes (alias, registration_id) never wait behind
/// broadcasts (everyone, tags).
public enum Lane: String, Sendable, Hashable {
    case targeted
    case broadcast
}

/// The chunk slots of a worker, shared by its two leasing loops (one per lane).
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

    /// Takes a slot for a lease from `lane`, when it has room: any free slot for a targeted
    /// chunk, only the unreserved ones for a broadcast chunk. Each lane's loop takes its slot
    /// before leasing, so the two loops together never exceed `slots`.
    public mutating func reserve(_ lane: Lane) -> Bool {
        guard running < slots else { return false }
        switch lane {
        case .targeted: targetedRunning += 1
        case .broadcast:
            guard broadcastRunning < slots - reservedForTargeted else { return false }
            broadcastRunning += 1
        }
        return true
    }

    /// The app whose broadcast chunk was just leased: the next lease prefers the apps after it.
    public mutating func servedBroadcast(appID: Int64) {
        lastBroadcastApp = appID
    }

    /// Gives back a slot: its chunk finished, or its lease found nothing.
    public mutating func finished(_ lane: Lane) {
        switch lane {
        case .targeted: targetedRunning -= 1
        case .broadcast: broadcastRunning -= 1
        }
    }
}
