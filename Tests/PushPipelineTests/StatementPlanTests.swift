import PostgresStore
@testable import PushPipeline
@testable import RelayAPI
@testable import RelayStore
import Testing
import TestSupport

/// Every variant of every statement family of the pipeline, the store (RelayStore) and the
/// API (RelayAPI), prepared and explained against the test cluster: a statement added to a
/// family's `all` is checked without a test of its own, and a variant that no longer
/// prepares (a renamed column, a parameter whose type PostgreSQL cannot tell) fails here
/// rather than on the first push of its shape.
@Suite struct StatementPlanTests {
    static let statements = AudienceStatements.all + AcceptBatchStatements.all + LeaseStatements.all + OutcomeStatements.all + WithdrawalStatements.all
        + ScheduleFiringStatements.all + BadgeStatements.all + DeliveryPartitionStatements.all
        + DeviceStatements.all + AppStatements.all + CredentialStatements.all + FCMCredentialStatements.all + GroupStatements.all + ScheduleStatements.all
        + ReportStatements.all
        + DashboardSessionStatements.all + GroupPushStatements.all + DeviceFigureStatements.all + AppRateLimitStatements.all
        + MetricsStatements.all + DashboardAppStatements.all + AdminReportStatements.all
        + DeviceListingStatements.all + MessageListingStatements.all + DeviceImportStatements.all + RequestCountStatements.all
        + ClientKeyStatements.all + ReceiptStatements.all + WebhookStatements.all + WebhookOutboxStatements.all
        + LiveActivityChannelStatements.all + LiveActivityStatements.all

    /// The statements known to read a table whole, each with the reason; they are still
    /// prepared and explained here.
    static let wholeTableReads: [String: String] = [
        DashboardSessionStatements.open.name:
            "a login sweeps the expired dashboard sessions: a small table (a row per logged-in browser), swept at every login",
        DeviceImportStatements.update.name: "an import's partition reads its staging table whole: the lines it merges",
        DeviceImportStatements.create.name: "an import's partition reads its staging table whole: the lines it merges",
        RequestCountStatements.sweep.name:
            "a small table (a row per app or group that called the API), swept once an hour per API node",
    ]

    @Test func eachNameGoesWithOneText() {
        #expect(Set(Self.statements.map(\.name)).count == Self.statements.count)
        #expect(Set(Self.statements.map(\.text)).count == Self.statements.count)
    }

    /// The reports' outcomes statement spells out the pipeline's span probe: a device is
    /// `sent` in a report exactly when the pipeline counts it recorded.
    @Test func reportOutcomesProbeSpansAsThePipelineDoes() {
        func collapsed(_ sql: String) -> String { sql.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        #expect(collapsed(ReportStatements.outcomes.text).contains(collapsed(DeliverySpans.sentSQL(message: "$3", device: "d.id"))))
    }

    /// The plan a prepared statement settles on once it goes generic, as the pool's do, with
    /// sequential scans off: a table read without an index shows as a `Seq Scan`. A device
    /// import's staging tables exist in the session, as they do in the import's transaction.
    @Test(arguments: statements) func explains(_ statement: SQLStatement) async throws {
        let pool = try await SharedDatabase.shared.pool()
        let plan = try await pool.withConnection { connection in
            try connection.transaction { connection in
                try connection.query("SET LOCAL enable_seqscan = off")
                try connection.query("SET LOCAL plan_cache_mode = force_generic_plan")
                for table in DeviceImportStatements.staging { try connection.query(table) }
                try connection.query("PREPARE explained AS " + statement.text)
                defer { _ = try? connection.query("DEALLOCATE explained") }
                let count = try connection.query("SELECT cardinality(parameter_types) AS n FROM pg_prepared_statements WHERE name = 'explained'")[0]
                    .int("n")
                let arguments = count == 0 ? "" : "(" + Array(repeating: "NULL", count: count).joined(separator: ", ") + ")"
                return try connection.query("EXPLAIN EXECUTE explained" + arguments).map { try $0.string("QUERY PLAN") }.joined(separator: "\n")
            }
        }
        #expect(!plan.isEmpty)
        #expect(!plan.contains("Seq Scan") || Self.wholeTableReads[statement.name] != nil, "\(statement.name): \(plan)")
    }
}

/// One migrated database for the statements' plans: explaining writes nothing. The first
/// caller opens it and the others, arriving while it does (every statement's case at once),
/// wait for that one opening rather than each making a database.
private actor SharedDatabase {
    static let shared = SharedDatabase()
    private var opening: Task<PostgresPool, any Error>?

    func pool() async throws -> PostgresPool {
        if let opening { return try await opening.value }
        let task = Task {
            // Every case waits its turn on these few connections, however long the queue.
            var configuration = PostgresPoolConfiguration(connectionString: try await TestDatabase.fresh(), size: 4)
            configuration.acquireTimeout = .seconds(600)
            configuration.maxWaiting = 8192
            let pool = PostgresPool(configuration: configuration, logger: TestDatabase.quietLogger)
            _ = try await Migrator.migrate(pool, logger: TestDatabase.quietLogger)
            return pool
        }
        opening = task
        return try await task.value
    }
}
