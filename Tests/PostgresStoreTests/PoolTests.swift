import Foundation
import Synchronization
import Testing
@testable import PostgresStore

/// The pool's threads, limits and recovery, against a real PostgreSQL server.
@Suite("Pool")
struct PoolTests {
    @Test("the pool never runs more than `size` closures at once, and runs them on its own threads")
    func concurrencyIsBounded() async throws {
        let running = Locked((now: 0, peak: 0))
        try await TestDatabase.withPool(size: 3) { pool, _ in
            let threadNames = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        try await pool.withConnection { connection in
                            running.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
                            defer { running.withLock { $0.now -= 1 } }
                            try connection.query("SELECT pg_sleep(0.05)")
                            return currentThreadName()
                        }
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(running.withLock { $0.peak } == 3)
            #expect(threadNames.count == 3)
            #expect(threadNames.allSatisfy { $0.hasPrefix("pushrelay-pg-") }, "\(threadNames)")
        }
    }

    @Test("a call that waits longer than acquireTimeout fails with .unavailable")
    func acquireTimeout() async throws {
        try await TestDatabase.withPool(size: 1, acquireTimeout: .milliseconds(200)) { pool, _ in
            let started = Locked(false)
            async let holder: Void = pool.withConnection { connection in
                started.withLock { $0 = true }
                try connection.query("SELECT pg_sleep(1.5)")
            }
            try await waitUntil { started.withLock { $0 } }
            let clock = ContinuousClock()
            let begin = clock.now
            let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
            #expect(error?.isUnavailable == true)
            #expect(clock.now - begin < .seconds(1))
            try await holder
        }
    }

    @Test("calls beyond maxWaiting fail at once with .unavailable")
    func boundedQueue() async throws {
        try await TestDatabase.withPool(size: 1, maxWaiting: 1) { pool, _ in
            let started = Locked(false)
            async let holder: Void = pool.withConnection { connection in
                started.withLock { $0 = true }
                try connection.query("SELECT pg_sleep(0.5)")
            }
            try await waitUntil { started.withLock { $0 } }
            async let waiter = pool.query("SELECT 1 AS one")
            try await waitUntil { pool.waitingCount == 1 }
            let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 2") }
            #expect(error?.isUnavailable == true)
            try await holder
            #expect(try await waiter[0].int("one") == 1)
        }
    }

    @Test("close() finishes queued calls, then refuses new ones")
    func closeDrains() async throws {
        let connectionString = try await TestDatabase.connectionString()
        let pool = PostgresPool(configuration: .init(connectionString: connectionString, size: 1), logger: TestDatabase.quietLogger)
        let started = Locked(false)
        async let first = pool.withConnection { connection in
            started.withLock { $0 = true }
            return try connection.query("SELECT 1 AS n, pg_sleep(0.2)")
        }
        try await waitUntil { started.withLock { $0 } }
        async let second = pool.query("SELECT 2 AS n")
        try await waitUntil { pool.waitingCount == 1 }
        await pool.close()
        #expect(try await first[0].int("n") == 1)
        #expect(try await second[0].int("n") == 2)
        let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 3") }
        #expect(error?.isUnavailable == true)
    }

    @Test("an unreachable server fails calls quickly with .unavailable")
    func unreachableServer() async throws {
        let missing = TestDatabase.temporaryDirectory("missing")
        let pool = PostgresPool(
            configuration: .init(connectionString: "host=\(missing) dbname=x user=x connect_timeout=2", size: 1),
            logger: TestDatabase.quietLogger)
        let clock = ContinuousClock()
        let begin = clock.now
        for _ in 0..<3 {
            let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
            #expect(error?.isUnavailable == true)
        }
        #expect(clock.now - begin < .seconds(2))
        await pool.close()
    }

    @Test("the pool keeps working after the server restarts")
    func survivesServerRestart() async throws {
        try await withPrivateCluster { cluster, connectionString in
            let pool = PostgresPool(configuration: .init(connectionString: connectionString, size: 2), logger: TestDatabase.quietLogger)
            // Both threads hold a connection before the outage.
            async let a = pool.query("SELECT pg_backend_pid() AS pid, pg_sleep(0.1)")
            async let b = pool.query("SELECT pg_backend_pid() AS pid, pg_sleep(0.1)")
            let pidsBefore = Set(try await [a[0].int("pid"), b[0].int("pid")])
            #expect(pidsBefore.count == 2)

            try await onOwnThread { try cluster.stop() }
            let clock = ContinuousClock()
            for _ in 0..<4 {
                let begin = clock.now
                let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
                #expect(error?.isUnavailable == true)
                #expect(clock.now - begin < .seconds(1))
            }

            _ = try await onOwnThread { try cluster.start() }
            // Reconnection may wait out reconnectDelay; poll until a call succeeds.
            try await waitUntil(timeout: .seconds(10)) { (try? await pool.query("SELECT 1")) != nil }
            for _ in 0..<6 {
                #expect(try await pool.query("SELECT $1::int AS n", [7])[0].int("n") == 7)
            }
            await pool.close()
        }
    }
}

/// Polls `condition` until it holds, failing after `timeout`.
func waitUntil(
    timeout: Duration = .seconds(5),
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while try await !condition() {
        guard clock.now < deadline else {
            Issue.record("condition not met within \(timeout)")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// A value shared with the closures a pool runs on its threads.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// The kernel's name for the calling thread.
func currentThreadName() -> String {
    let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
    return name?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
}
