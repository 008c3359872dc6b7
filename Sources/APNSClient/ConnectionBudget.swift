/// The process's bound on connections to APNs, shared fairly among the pools that want them.
///
/// Pure: each pool (an app and environment on one loop) is an owner id; `ConnectionAllowance`
/// keeps this under a lock and carries out the wake-ups and reclaims it names. Below the
/// bound every request is granted. At the bound a request waits, first in line for the next
/// place freed, and the budget names a pool to give a connection back when the asker is owed
/// one: the fair share is the bound divided among the pools holding or waiting, a pool above
/// it gives back an idle connection (or drains a busy one for a pool below its share), and a
/// pool holding none gets the idle connection of another (an idle place is worth less than
/// an app with work).
struct ConnectionBudget {
    /// A pool asked to give a connection back.
    struct Reclaim: Equatable {
        var owner: Int
        /// Only a connection without open streams; else a busy one drains.
        var idleOnly: Bool
    }

    enum Decision: Equatable {
        case granted
        /// Queued; `reclaim`, when given, is the connection asked back for it.
        case waiting(reclaim: Reclaim?)
    }

    let limit: Int
    private(set) var total = 0
    /// Connections held (open or opening) per pool; pools holding none are absent.
    private(set) var held: [Int: Int] = [:]
    /// Connections without open streams per pool, as last reported.
    private var idle: [Int: Int] = [:]
    /// Pools waiting for a place, first come first served.
    private(set) var waiters: [Int] = []
    /// Reclaims asked and not yet answered by a close or a refusal.
    private var reclaiming = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// The places each pool is owed when all are taken.
    var fairShare: Int {
        let demanding = held.count + waiters.count(where: { held[$0] == nil })
        return max(1, limit / max(1, demanding))
    }

    /// A pool wants one more connection.
    mutating func request(_ owner: Int) -> Decision {
        if total < limit {
            grant(owner)
            return .granted
        }
        if !waiters.contains(owner) { waiters.append(owner) }
        return .waiting(reclaim: reclaim(for: owner))
    }

    /// A connection of `owner` closed (or a grant came back unused).
    ///
    /// - Returns: the waiting pool now granted the freed place.
    mutating func release(_ owner: Int) -> Int? {
        guard let count = held[owner] else { return nil }
        held[owner] = count > 1 ? count - 1 : nil
        total -= 1
        reclaiming = max(0, reclaiming - 1)
        return grantFirstWaiter()
    }

    /// A pool asked to give a connection back had none to spare.
    mutating func reclaimDeclined(_ owner: Int) {
        reclaiming = max(0, reclaiming - 1)
        idle[owner] = 0
    }

    /// How many of `owner`'s connections have no open stream (reported as it changes).
    ///
    /// - Returns: a connection to ask back for the first waiter, now that one is idle.
    mutating func reportIdle(_ owner: Int, count: Int) -> Reclaim? {
        idle[owner] = count > 0 ? count : nil
        guard count > 0, let first = waiters.first else { return nil }
        return reclaim(for: first)
    }

    /// The pool is gone (shut down, or no longer waiting): its places are freed.
    ///
    /// - Returns: the waiting pools granted the freed places.
    mutating func remove(_ owner: Int) -> [Int] {
        waiters.removeAll { $0 == owner }
        idle[owner] = nil
        total -= held.removeValue(forKey: owner) ?? 0
        var granted: [Int] = []
        while total < limit, let next = grantFirstWaiter() { granted.append(next) }
        return granted
    }

    private mutating func grant(_ owner: Int) {
        held[owner, default: 0] += 1
        total += 1
        waiters.removeAll { $0 == owner }
    }

    private mutating func grantFirstWaiter() -> Int? {
        guard total < limit, !waiters.isEmpty else { return nil }
        let next = waiters.removeFirst()
        grant(next)
        return next
    }

    /// Asks a connection back for `owner` unless enough are on the way.
    private mutating func reclaim(for owner: Int) -> Reclaim? {
        guard reclaiming < waiters.count, let reclaim = victim(for: owner) else { return nil }
        reclaiming += 1
        if reclaim.idleOnly { idle[reclaim.owner, default: 1] -= 1 }
        return reclaim
    }

    /// Who gives a connection back for `owner`, if anyone owes it one.
    private func victim(for owner: Int) -> Reclaim? {
        let share = fairShare
        let mine = held[owner] ?? 0
        func largest(_ include: (Int, Int) -> Bool) -> Int? {
            held.filter { $0.key != owner && include($0.key, $0.value) }
                .max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
        }
        let hasIdle = { (other: Int) in (idle[other] ?? 0) > 0 }
        if let other = largest({ $1 > share && hasIdle($0) }) { return Reclaim(owner: other, idleOnly: true) }
        if mine < share, let other = largest({ $1 > share }) { return Reclaim(owner: other, idleOnly: false) }
        if mine == 0, let other = largest({ id, _ in hasIdle(id) }) { return Reclaim(owner: other, idleOnly: true) }
        return nil
    }
}
