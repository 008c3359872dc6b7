import Synchronization

/// The process's `ConnectionBudget` behind a lock, shared by the pools of every APNs client
/// it is given to (`APNSClientResources`), and the hand-overs its decisions need: a place
/// freed goes to the first pool waiting (`granted` on its loop), a pool named to give a
/// connection back is told on its loop.
final class ConnectionAllowance: Sendable {
    /// How the allowance reaches a pool on the pool's loop.
    struct Member: Sendable {
        /// A place is the pool's: it opens a connection, or releases the place.
        var granted: @Sendable () -> Void
        /// Give a connection back (`idleOnly`: only one without open streams).
        var reclaim: @Sendable (_ idleOnly: Bool) -> Void
    }

    private struct State {
        var budget: ConnectionBudget
        var members: [Int: Member] = [:]
    }

    private let state: Mutex<State>
    private let nextOwner = Atomic<Int>(0)

    init(limit: Int) {
        state = Mutex(State(budget: ConnectionBudget(limit: limit)))
    }

    var limit: Int { state.withLock { $0.budget.limit } }
    /// Connections held (open or opening) now, over every pool.
    var total: Int { state.withLock { $0.budget.total } }

    /// Enrolls a pool.
    ///
    /// - Returns: its owner id for the other calls.
    func join(_ member: Member) -> Int {
        let owner = nextOwner.wrappingAdd(1, ordering: .relaxed).newValue
        state.withLock { $0.members[owner] = member }
        return owner
    }

    /// - Returns: true when the connection may open now; else `member.granted` comes later.
    func request(_ owner: Int) -> Bool {
        let (decision, victim) = state.withLock { state -> (ConnectionBudget.Decision, Member?) in
            let decision = state.budget.request(owner)
            guard case let .waiting(reclaim?) = decision else { return (decision, nil) }
            return (decision, state.members[reclaim.owner])
        }
        if case let .waiting(reclaim?) = decision { victim?.reclaim(reclaim.idleOnly) }
        return decision == .granted
    }

    func release(_ owner: Int) {
        let next = state.withLock { state in state.budget.release(owner).flatMap { state.members[$0] } }
        next?.granted()
    }

    func reclaimDeclined(_ owner: Int) {
        state.withLock { $0.budget.reclaimDeclined(owner) }
    }

    func reportIdle(_ owner: Int, count: Int) {
        let reclaim = state.withLock { state in
            state.budget.reportIdle(owner, count: count).flatMap { reclaim in state.members[reclaim.owner].map { ($0, reclaim) } }
        }
        if let (victim, reclaim) = reclaim { victim.reclaim(reclaim.idleOnly) }
    }

    /// The pool shut down: its places (and its place in line) go to others.
    func leave(_ owner: Int) {
        let granted = state.withLock { state in
            state.members[owner] = nil
            return state.budget.remove(owner).compactMap { state.members[$0] }
        }
        for member in granted { member.granted() }
    }
}
