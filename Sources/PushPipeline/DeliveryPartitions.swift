import PostgresStore
import RelayCore

/// Keeps the day partitions of `deliveries` (migration 0020) and of `delivery_spans` (0023),
/// a day's two together: creates them `daysAhead` days ahead and drops those older than the
/// retention, whole, instead of deleting rows.
/// Messages and their counters outlive their deliveries. Run by worker and scheduler nodes;
/// several nodes doing it at once is safe (the SQL functions take an advisory lock).
public struct DeliveryPartitions: Sendable {
    let pool: PostgresPool
    let retentionDays: Int
    let daysAhead: Int
    let logger: Logger

    public init(pool: PostgresPool, retentionDays: Int, daysAhead: Int = 7, logger: Logger) {
        self.pool = pool
        self.retentionDays = retentionDays
        self.daysAhead = daysAhead
        self.logger = logger.with(["component": "partitions"])
    }

    /// What one pass did.
    public struct Pass: Sendable, Equatable {
        public var created: Int
        public var dropped: [String]
    }

    /// Creates the missing partitions ahead, then drops the expired ones.
    public func maintain() async throws -> Pass {
        let created = try await pool.preparedQuery(DeliveryPartitionStatements.create, [daysAhead]).first?.int("n") ?? 0
        let dropped = try await pool.preparedQuery(DeliveryPartitionStatements.drop, [retentionDays])
            .map { try $0.string("name") }
        if created > 0 || !dropped.isEmpty {
            logger.info("delivery partitions maintained", ["created": String(created), "dropped": dropped.joined(separator: ",")])
        }
        return Pass(created: created, dropped: dropped)
    }

    /// Maintains now and then every `interval` until the task is cancelled; a failed pass
    /// is logged and tried again at the next one (a week of partitions lies ahead).
    public func run(every interval: Duration = .seconds(3600)) async {
        while !Task.isCancelled {
            do {
                _ = try await maintain()
            } catch {
                logger.warning("delivery partition maintenance failed", ["error": "\(error)"])
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }
}
