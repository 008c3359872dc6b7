import Foundation
import PostgresStore
import Synchronization

/// Counts `/v3` requests per app (and per group) in PostgreSQL, so every API node shares one
/// count and N nodes allow the limit, not N times it: a prepared upsert
/// (`RequestCountStatements.take`) on the subject's row of the UNLOGGED `request_counts`, in
/// fixed windows of a minute aligned to the epoch, as `FixedWindowCounter` decides them.
///
/// Concurrent requests of one subject on this node share an upsert (`CountCoalescer`): each
/// is told its own place in the count. The window is read from this node's clock (injected);
/// the row keeps the newest window any node has counted in. Once an hour a node sweeps the
/// rows idle for an hour (deleted apps, quiet ones) on the same connection, after a count.
final class RequestCounter: Sendable {
    static let windowSeconds: Int64 = 60
    private static let sweepEvery: Int64 = 3600

    /// A request waiting for its place in the count.
    private struct Waiter {
        var limit: Int
        /// Seconds since the epoch when it arrived.
        var now: Int64
        var continuation: CheckedContinuation<FixedWindowCounter.Decision, any Error>
    }

    private let pool: PostgresPool
    private let clock: @Sendable () -> Date
    private let coalescer = Mutex(CountCoalescer<Waiter>())
    /// When this node sweeps next (epoch seconds); 0: at its first count.
    private let nextSweep = Atomic<Int64>(0)

    init(pool: PostgresPool, clock: @escaping @Sendable () -> Date) {
        self.pool = pool
        self.clock = clock
    }

    /// Counts one request of `subject` (an app key, `group-<group key>`) against `limit`.
    ///
    /// - Throws: the database's errors; nothing is counted then.
    func take(_ subject: String, limit: Int) async throws -> FixedWindowCounter.Decision {
        let now = Int64(clock().timeIntervalSince1970.rounded(.down))
        return try await withCheckedThrowingContinuation { continuation in
            let batch = coalescer.withLock { $0.arrive(subject, Waiter(limit: limit, now: now, continuation: continuation)) }
            if let batch { Task { await self.count(subject, batch) } }
        }
    }

    /// Counts `batch`, then every batch that gathered meanwhile, until none did.
    private func count(_ subject: String, _ batch: [Waiter]) async {
        var batch = batch
        while true {
            let now = batch.map(\.now).max() ?? 0
            do {
                let (count, windowStart) = try await upsert(subject, adding: batch.count, now: now)
                // The batch's requests are the last `batch.count` of the window's count, in arrival order.
                for (index, waiter) in batch.enumerated() {
                    waiter.continuation.resume(returning: FixedWindowCounter.decision(
                        count: count - batch.count + 1 + index, limit: waiter.limit, windowStart: windowStart,
                        windowSeconds: Self.windowSeconds, now: waiter.now))
                }
            } catch {
                for waiter in batch { waiter.continuation.resume(throwing: error) }
            }
            guard let next = coalescer.withLock({ $0.finished(subject) }) else { return }
            batch = next
        }
    }

    /// Adds `requests` to the subject's count in the window of `now`: the window's count and start.
    private func upsert(_ subject: String, adding requests: Int, now: Int64) async throws -> (count: Int, windowStart: Int64) {
        let window = FixedWindowCounter.windowStart(now, windowSeconds: Self.windowSeconds)
        let sweepBefore = claimSweep(now: now) ? window - Self.sweepEvery : nil
        let row = try await pool.withConnection { connection in
            let row = try connection.preparedQuery(RequestCountStatements.take, [subject, window, requests])[0]
            if let sweepBefore { try connection.preparedQuery(RequestCountStatements.sweep, [sweepBefore]) }
            return row
        }
        return (try row.int("count"), Int64(try row.int("window_start")))
    }

    /// Whether this count sweeps: the first one due, on this node.
    private func claimSweep(now: Int64) -> Bool {
        let due = nextSweep.load(ordering: .relaxed)
        guard now >= due else { return false }
        return nextSweep.compareExchange(expected: due, desired: now + Self.sweepEvery, ordering: .relaxed).exchanged
    }
}
