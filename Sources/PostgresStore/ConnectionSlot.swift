import CSystem
import RelayCore

/// The one connection a pool thread owns: opened lazily, checked before each use, and
/// replaced after it breaks.
///
/// Thread rule: created, used and dropped on its pool thread only; not `Sendable`.
final class ConnectionSlot {
    private let configuration: PostgresPoolConfiguration
    private let logger: Logger
    private let health: ConnectHealth
    private var current: PostgresConnection?

    init(configuration: PostgresPoolConfiguration, health: ConnectHealth, logger: Logger) {
        self.configuration = configuration
        self.health = health
        self.logger = logger
    }

    /// A live connection: the current one if the server has not hung up on it, else a new one.
    ///
    /// - Throws: `PostgresError.unavailable` when connecting fails, or when any of the pool's
    ///   threads failed to connect less than `reconnectDelay` ago.
    func connection() throws -> PostgresConnection {
        if let current {
            if current.isAlive() { return current }
            logger.warning("postgres connection lost; reconnecting")
            self.current = nil
        }
        if let recentFailure = health.recentFailure(within: configuration.reconnectDelay) {
            throw recentFailure
        }
        do {
            let connection = try PostgresConnection(connectionString: configuration.connectionString, logger: logger)
            if health.connected() { logger.info("postgres connection restored") }
            current = connection
            return connection
        } catch let error as PostgresError {
            if health.failed(error) { logger.warning("postgres connect failed", ["error": error.description]) }
            throw error
        }
    }

    /// Leaves the connection clean for the next closure: an open transaction is rolled back,
    /// a broken or busy connection is dropped.
    func release() {
        guard let current else { return }
        switch current.transactionStatus {
        case PQTRANS_IDLE:
            break
        case PQTRANS_INTRANS, PQTRANS_INERROR:
            logger.warning("a closure left a transaction open; rolling it back")
            current.rollbackQuietly()
        default:
            break
        }
        if !current.isUsable || current.transactionStatus != PQTRANS_IDLE {
            self.current = nil
        }
    }

    /// Closes the connection; the thread is ending.
    func close() {
        current = nil
    }
}
