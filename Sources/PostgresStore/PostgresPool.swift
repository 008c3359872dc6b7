import CSystem
import Foundation
import RelayCore
import Synchronization

/// A fixed set of threads, each owning at most one PostgreSQL connection, serving calls
/// from async code.
///
/// Calls wait in a bounded queue, suspended on a continuation (never blocking the Swift
/// concurrency pool), until one of the pool's threads runs their closure with its connection.
/// A thread whose connection broke opens a new one before its next call, so the pool recovers
/// by itself once the server is back; while it is down, calls fail quickly with `.unavailable`.
public final class PostgresPool: Sendable {
    private let work: PoolWork
    private let configuration: PostgresPoolConfiguration
    /// Its threads: at most that many calls run at once.
    public var size: Int { configuration.size }
    /// Calls running on a pool thread right now.
    private let busy = BusyCount()

    public init(configuration: PostgresPoolConfiguration, logger: Logger) {
        precondition(configuration.size >= 1, "a pool needs at least one thread")
        self.configuration = configuration
        work = PoolWork(capacity: max(1, configuration.maxWaiting), workers: configuration.size, maxBulk: max(1, configuration.maxBulk))
        let health = ConnectHealth()
        for index in 0..<configuration.size {
            let thread = Thread { [work] in
                // Named through pthreads: Foundation's Thread.name did not reliably reach the kernel.
                CSystem_set_thread_name("pushrelay-pg-\(index)")
                let slot = ConnectionSlot(configuration: configuration, health: health,
                                          logger: logger.with(["pg_thread": "\(index)"]))
                Self.serve(work, slot: slot)
            }
            thread.start()
        }
    }

    deinit {
        // Let the threads end even when nobody called close().
        work.close(done: nil)
    }

    /// Runs `body` on one of the pool's threads with a live connection.
    ///
    /// - Throws: `PostgresError.unavailable` when no connection can be had (server down,
    ///   pool closed, no thread free within `acquireTimeout`, too many waiting), or whatever
    ///   `body` throws. A transaction `body` leaves open is rolled back.
    /// - Parameter priority: `.bulk` work waits behind every `.normal` call and never takes
    ///   the pool's last free thread.
    public func withConnection<T: Sendable>(priority: PostgresPriority = .normal,
                                            _ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let item = PoolWorkItem(
                priority: priority,
                run: { [busy] slot in
                    busy.value.add(1, ordering: .relaxed)
                    defer { busy.value.subtract(1, ordering: .relaxed) }
                    let result: Result<T, any Error>
                    do {
                        let connection = try slot.connection()
                        result = Result { try body(connection) }
                        slot.release()
                    } catch {
                        result = .failure(error)
                    }
                    continuation.resume(with: result)
                },
                fail: { continuation.resume(throwing: $0) })
            work.submit(item, timeout: configuration.acquireTimeout)
        }
    }

    /// Runs one parameterised statement on any connection; see `PostgresConnection.query`.
    @discardableResult
    public func query(_ sql: String, _ params: [(any PostgresBindable)?] = [],
                      priority: PostgresPriority = .normal) async throws -> PostgresRows {
        try await withConnection(priority: priority) { try $0.query(sql, params) }
    }

    /// Finishes the calls already queued, closes every connection and waits for the threads
    /// to end. Calls made afterwards fail with `.unavailable`.
    public func close() async {
        await withCheckedContinuation { work.close(done: $0) }
    }

    /// Calls waiting for a thread right now (for tests and metrics).
    var waitingCount: Int { work.waitingCount }

    /// Bulk calls the pool runs at once: `maxBulk`, and never every thread. Bulk work that
    /// splits itself (a device import) makes this many parts.
    public var bulkLimit: Int { work.bulkLimit }

    /// How the pool is used right now, for metrics.
    public var usage: PostgresPoolUsage {
        PostgresPoolUsage(size: configuration.size, busy: busy.value.load(ordering: .relaxed), waiting: work.waitingCount)
    }

    /// A pool thread's whole life: take items until the pool is closed and drained.
    private static func serve(_ work: PoolWork, slot: ConnectionSlot) {
        var finished: PoolWorkItem?
        while let item = work.next(after: finished) {
            item.run(slot)
            finished = item
        }
        slot.close()
        work.workerExited()
    }
}

/// The pool's count of running calls, shared with the work items that change it.
private final class BusyCount: Sendable {
    let value = Atomic<Int>(0)
}

/// A reading of a pool's use: its threads (one connection each), those running a call, and
/// calls waiting for one.
public struct PostgresPoolUsage: Sendable, Equatable {
    public var size: Int
    public var busy: Int
    public var waiting: Int
}
