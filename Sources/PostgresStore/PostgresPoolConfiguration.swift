import Foundation

/// How a `PostgresPool` connects and how much it lets wait.
public struct PostgresPoolConfiguration: Sendable {
    /// A libpq connection string, `key=value` pairs or a `postgresql://` URI. Parameters it
    /// does not set get our defaults (`connect_timeout=5`, TCP keepalives).
    public var connectionString: String
    /// Threads, hence connections and closures running at once.
    public var size: Int = 4
    /// How long a call may wait for a free thread before it fails with `.unavailable`.
    public var acquireTimeout: Duration = .seconds(5)
    /// Calls that may wait for a thread; beyond this a call fails at once with `.unavailable`.
    public var maxWaiting: Int = 1024
    /// After a failed connect, a thread waits this long before it dials again; calls it
    /// takes meanwhile fail at once with the same error, so an outage costs no dial per call.
    public var reconnectDelay: Duration = .milliseconds(200)
    /// Bulk calls (broadcast fan-out, imports) running at once; by default one per core. More
    /// only queue for the same cores inside PostgreSQL, and what waits there is every other
    /// statement, a targeted push's too: on 2 cores, 2 instead of 3 of a 4-connection pool
    /// kept a 1M broadcast's rate (92–97k/s against 86–99k/s) and brought the targeted p99
    /// during it to 15–18 ms from 19–35 ms.
    public var maxBulk: Int = ProcessInfo.processInfo.activeProcessorCount

    public init(
        connectionString: String,
        size: Int = 4,
        acquireTimeout: Duration = .seconds(5),
        maxWaiting: Int = 1024,
        reconnectDelay: Duration = .milliseconds(200)
    ) {
        self.connectionString = connectionString
        self.size = size
        self.acquireTimeout = acquireTimeout
        self.maxWaiting = maxWaiting
        self.reconnectDelay = reconnectDelay
    }
}
