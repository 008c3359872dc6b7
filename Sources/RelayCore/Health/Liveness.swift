import Synchronization

/// The process's `LoopHeartbeats` behind a lock, with the clock injected: the worker's and the
/// scheduler's loops beat into it, `/healthz` and `/readyz` read it.
public final class Liveness: Sendable {
    private let heartbeats: Mutex<LoopHeartbeats>
    private let now: @Sendable () -> ContinuousClock.Instant

    /// - Parameters:
    ///   - allowance: how long one pass of a loop's work may take beyond its announced wait.
    ///   - now: the clock; tests move it.
    public init(allowance: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        heartbeats = Mutex(LoopHeartbeats(allowance: allowance))
        self.now = now
    }

    /// `loop` came round now and waits at most `wait` before its next pass.
    public func beat(_ loop: String, nextWithin wait: Duration = .zero) {
        let now = now()
        heartbeats.withLock { $0.beat(loop, at: now, nextWithin: wait) }
    }

    public func end(_ loop: String) {
        heartbeats.withLock { $0.end(loop) }
    }

    /// The loops overdue now, by name; empty when every loop comes round in time.
    public var stalled: [String] {
        let now = now()
        return heartbeats.withLock { $0.stalled(at: now) }
    }

    public var allowance: Duration { heartbeats.withLock { $0.allowance } }
}
