import Synchronization

/// What the pool's threads last learned about reaching the server, shared so that one
/// thread's failed connect spares the others a dial, and one thread's success lets them all
/// dial again at once.
final class ConnectHealth: Sendable {
    private let lastFailure = Mutex<(at: ContinuousClock.Instant, error: PostgresError)?>(nil)

    /// The last connect failure, if it happened less than `interval` ago.
    func recentFailure(within interval: Duration) -> PostgresError? {
        lastFailure.withLock { failure in
            guard let failure, ContinuousClock.now - failure.at < interval else { return nil }
            return failure.error
        }
    }

    /// Records a failure; true when it is the first since the last success (worth a log line).
    func failed(_ error: PostgresError) -> Bool {
        lastFailure.withLock { failure in
            defer { failure = (ContinuousClock.now, error) }
            return failure == nil
        }
    }

    /// Records a success; true when it ends a run of failures.
    func connected() -> Bool {
        lastFailure.withLock { failure in
            defer { failure = nil }
            return failure != nil
        }
    }
}
