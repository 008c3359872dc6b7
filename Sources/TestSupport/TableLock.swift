import Foundation
import PostgresStore

/// A lock on a table, held by a test on a connection of its own until `release()`: what
/// touches the table in a conflicting mode waits in PostgreSQL meanwhile, surely in flight.
public struct TableLock: Sendable {
    /// The lock's pool: a connection holds the lock, the other is the test's, to look while it holds it.
    public let pool: PostgresPool
    private let released = DispatchSemaphore(value: 0)
    private let holder: Task<Void, any Error>

    private init(pool: PostgresPool, table: String, mode: String) {
        self.pool = pool
        let released = released
        holder = Task {
            try await pool.withConnection { connection in
                try connection.execute("BEGIN; LOCK TABLE \(table) IN \(mode) MODE")
                released.wait()
                try connection.execute("ROLLBACK")
            }
        }
    }

    /// Takes the lock on `table` in `mode` and returns once PostgreSQL has granted it (or
    /// throws after 30 s).
    public static func take(_ table: String, mode: String = "ACCESS EXCLUSIVE", database: String) async throws -> TableLock {
        let pool = PostgresPool(configuration: PostgresPoolConfiguration(connectionString: database, size: 2),
                                logger: TestDatabase.quietLogger)
        let lock = TableLock(pool: pool, table: table, mode: mode)
        let deadline = ContinuousClock.now + .seconds(30)
        while try await pool.query("SELECT count(*) AS n FROM pg_locks WHERE relation = $1::regclass AND granted", [table])[0].int("n") == 0 {
            guard ContinuousClock.now < deadline else {
                await lock.release()
                throw TableLockTimeout(table: table)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return lock
    }

    /// Ends the lock's transaction and closes the pool.
    public func release() async {
        released.signal()
        _ = await holder.result
        await pool.close()
    }
}

/// The lock was not granted within 30 s.
public struct TableLockTimeout: Error {
    public var table: String
}
