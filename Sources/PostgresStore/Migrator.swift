import RelayCore

/// Brings a database's schema up to date with the migrations this binary carries.
public enum Migrator {
    /// The `pg_advisory_lock` key every PushRelay node takes while migrating ("pushrela").
    static let lockKey: Int64 = 0x7075_7368_7265_6c61

    static let createLedger = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version     bigint PRIMARY KEY,
            name        text NOT NULL,
            applied_at  timestamptz NOT NULL DEFAULT now()
        )
        """

    /// Applies pending migrations in version order, each in its own transaction, recorded in
    /// `schema_migrations(version, name, applied_at)`.
    ///
    /// Runs under a session advisory lock, so nodes starting together apply each migration
    /// once: the second waits, then finds nothing left to do.
    ///
    /// - Returns: the versions applied, empty when the schema was up to date.
    public static func migrate(
        _ pool: PostgresPool,
        migrations: [Migration] = EmbeddedMigrations.all,
        logger: Logger
    ) async throws -> [Int] {
        _ = try MigrationPlan(migrations: migrations, applied: [])  // reject duplicates before locking
        return try await pool.withConnection { connection in
            try connection.query("SELECT pg_advisory_lock($1)", [lockKey])
            defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [lockKey]) }
            try connection.execute(createLedger)
            let plan = try MigrationPlan(migrations: migrations, applied: appliedVersions(connection))
            var applied: [Int] = []
            for migration in plan.pending {
                try connection.transaction { connection in
                    try connection.execute(migration.sql)
                    try connection.query(
                        "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                        [migration.version, migration.name])
                }
                logger.info("applied migration", ["version": "\(migration.version)", "name": migration.name])
                applied.append(migration.version)
            }
            return applied
        }
    }

    /// True when every given migration is recorded as applied (for `/readyz`).
    public static func isUpToDate(_ pool: PostgresPool, migrations: [Migration] = EmbeddedMigrations.all) async throws -> Bool {
        try await pool.withConnection { connection in
            let ledger = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")
            guard try ledger.first?.bool("present") == true else { return false }
            return try MigrationPlan(migrations: migrations, applied: appliedVersions(connection)).pending.isEmpty
        }
    }

    private static func appliedVersions(_ connection: PostgresConnection) throws -> Set<Int> {
        Set(try connection.query("SELECT version FROM schema_migrations").map { try $0.int("version") })
    }
}
