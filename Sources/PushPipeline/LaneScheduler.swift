/// The two lanes of the queue: targeted pushes (alias, registration_id) never wait behind
/// broadcasts (everyone, tags).
public enum Lane: String, Sendable, Hashable {
    case targeted
    case broadcast
}

/// The chunk slots of a worker, a set per lane, shared by its two leasing loops.
///
/// - `broadcastSlots` broadcast chunks are worked on at once, and `extraBroadcastSlots` more
///   while the APNs clients' in-flight windows are wider than at start (APNs far away: the
///   chunks in hand must cover rate × round trip); when all are busy none is leased, so a
///   slow APNs slows leasing instead of growing memory.
/// - `targetedSlots` targeted chunks at once, apart from those: a single-user push finds a
///   free slot however many broadcasts run, and single-user pushes, each a short round trip
///   to APNs and the database, are not held to the few slots big chunks need.
/// - The broadcast lane is served round-robin over apps (`lastBroadcastApp`): each lease
///   prefers the next app id after the one served last, so one app's huge broadcast does
///   not starve another app's.
public struct LaneScheduler: Sendable, Equatable {
    public let broadcastSlots: Int
    public private(set) var extraBroadcastSlots = 0
    public let targetedSlots: Int
    public private(set) var targetedRunning = 0
    public private(set) var broadcastRunning = 0
    /// The app whose broadcast chunk was leased last.
    public private(set) var lastBroadcastApp: Int64 = 0

    public init(broadcastSlots: Int, targetedSlots: Int) {
        precondition(broadcastSlots >= 1 && targetedSlots >= 1, "a worker needs a slot in each lane")
        self.broadcastSlots = broadcastSlots
        self.targetedSlots = targetedSlots
    }

    /// Takes a slot of `lane` for a lease, when one is free.
    public mutating func reserve(_ lane: Lane) -> Bool {
        switch lane {
        case .targeted:
            guard targetedRunning < targetedSlots else { return false }
            targetedRunning += 1
        case .broadcast:
            guard broadcastRunning < broadcastSlots + extraBroadcastSlots else { return false }
            broadcastRunning += 1
        }
        return true
    }

    /// Slots beyond `broadcastSlots` the APNs side can take now (chunks running keep theirs).
    public mutating func setExtraBroadcastSlots(_ count: Int) {
        extraBroadcastSlots = max(0, count)
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
