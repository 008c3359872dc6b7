import Foundation
import PostgresStore
import Synchronization

/// Counts `/v3` requests per app (and per group) in PostgreSQL, so every API node shares one
/// count and N nodes allow the limit, not N times it: one prepared upsert per request
/// (`RequestCountStatements.take`) on the subject's row of the UNLOGGED `request_counts`,
/// in fixed windows of a minute aligned to the epoch, as `FixedWindowCounter` decides them.
///
/// The window is read from this node's clock (injected); the row keeps the newest window any
/// node has counted in. Once an hour a node sweeps the rows idle for an hour (deleted apps, quiet ones)
/// on the same connection, after its count.
final class RequestCounter: Sendable {
    static let windowSeconds: Int64 = 60
    private static let sweepEvery: Int64 = 3600

    private let pool: PostgresPool
    private let clock: @Sendable () -> Date
    /// When this node sweeps next (epoch seconds); 0: at its first request.
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
        let window = FixedWindowCounter.windowStart(now, windowSeconds: Self.windowSeconds)
        let sweepBefore = claimSweep(now: now) ? window - Self.sweepEvery : nil
        let row = try await pool.withConnection { connection in
            let row = try connection.preparedQuery(RequestCountStatements.take, [subject, window])[0]
            if let sweepBefore { try connection.preparedQuery(RequestCountStatements.sweep, [sweepBefore]) }
            return row
        }
        return FixedWindowCounter.decision(count: try row.int("count"), limit: limit, windowStart: Int64(try row.int("window_start")),
                                           windowSeconds: Self.windowSeconds, now: now)
    }

    /// Whether this request sweeps: the first one due, on this node.
    private func claimSweep(now: Int64) -> Bool {
        let due = nextSweep.load(ordering: .relaxed)
        guard now >= due else { return false }
        return nextSweep.compareExchange(expected: due, desired: now + Self.sweepEvery, ordering: .relaxed).exchanged
    }
}
