/// When each long-running loop of a process (a worker's leasing and resolving loops, the
/// scheduler's) is next expected back, so a hung loop is told from a quiet one: the decision
/// behind `/healthz` and `/readyz`, pure and driven by the caller's clock.
///
/// A loop beats before each wait, naming the wait; it is stalled once it has not beaten again
/// within that wait plus `allowance` (the time one pass of its work may take).
public struct LoopHeartbeats: Sendable, Equatable {
    /// How long one pass of a loop's work may take beyond its announced wait.
    public let allowance: Duration
    private var due: [String: ContinuousClock.Instant] = [:]

    public init(allowance: Duration) {
        self.allowance = allowance
    }

    /// `loop` came round at `now` and waits at most `wait` before its next pass.
    public mutating func beat(_ loop: String, at now: ContinuousClock.Instant, nextWithin wait: Duration) {
        due[loop] = now + wait + allowance
    }

    /// `loop` stopped on purpose: it is no longer expected.
    public mutating func end(_ loop: String) {
        due[loop] = nil
    }

    /// The loops overdue at `now`, by name.
    public func stalled(at now: ContinuousClock.Instant) -> [String] {
        due.filter { now > $0.value }.keys.sorted()
    }
}
