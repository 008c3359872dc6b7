import Synchronization

/// Each app's retries on one worker, paced so that one app's failing work never takes the
/// slots other apps' pushes need (issue 22 §4: 300 pushes APNs kept refusing, retried in
/// their slots, held another app's push for seconds).
///
/// A retry round of a chunk (its devices APNs asked to try again, sent again after a
/// backoff) costs one unit of its app's budget: `rate` a second, up to `burst` at once
/// (a generic cell rate algorithm: one "next allowed" instant per app). Within the budget a
/// chunk waits out its backoff in its slot as before; beyond it `take` says how long the
/// retry must wait, and the chunk goes back to the queue for that long, freeing its slot.
/// An app without retries costs nothing, and the other apps' budgets are untouched.
///
/// Pure: the clock comes in as `now`.
public struct RetryBudget: Sendable {
    /// Retry rounds an app may start each second.
    public let rate: Int
    /// Retry rounds an app may start at once after a quiet spell.
    public let burst: Int
    /// Per app, the instant from which its budget is whole again (the "theoretical arrival
    /// time"); apps past it are forgotten.
    private var fullAt: [Int64: ContinuousClock.Instant] = [:]
    /// Apps remembered before the next sweep of those whose budget is whole again.
    private var sweepAt = RetryBudget.minimumSweep
    private static let minimumSweep = 1024

    public init(rate: Int, burst: Int) {
        precondition(rate >= 1 && burst >= 1, "a retry budget allows at least one round")
        self.rate = rate
        self.burst = burst
    }

    /// Spends one retry round of `app`.
    ///
    /// - Returns: zero when the round may start now; otherwise how long after `now` it may.
    ///   Either way the round is counted: the caller starts it then.
    public mutating func take(app: Int64, now: ContinuousClock.Instant) -> Duration {
        let interval = Duration.seconds(1) / rate
        let tolerance = interval * (burst - 1)
        let due = max(fullAt[app] ?? now, now)
        let allowedAt = max(now, due - tolerance)
        fullAt[app] = due + interval
        if fullAt.count >= sweepAt { sweep(now: now) }
        return allowedAt - now
    }

    /// How many apps it remembers (those whose budget is not whole, and a few more until
    /// the next sweep).
    public var remembered: Int { fullAt.count }

    /// Forgets the apps whose budget is whole again, so memory follows the apps retrying.
    private mutating func sweep(now: ContinuousClock.Instant) {
        fullAt = fullAt.filter { $0.value > now }
        sweepAt = max(Self.minimumSweep, 2 * fullAt.count)
    }
}

/// A worker's `RetryBudget`, shared by the chunks it sends.
final class RetryPacer: Sendable {
    private let budget: Mutex<RetryBudget>

    init(_ budget: RetryBudget) {
        self.budget = Mutex(budget)
    }

    /// How long the next retry round of `app`, due `now`, must wait beyond its backoff; zero within budget.
    func wait(app: Int64, now: ContinuousClock.Instant) -> Duration {
        budget.withLock { $0.take(app: app, now: now) }
    }
}
