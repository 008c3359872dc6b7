import Foundation
import Testing
@testable import PostgresStore

/// Migrations against a real PostgreSQL server, each test on a schema of its own.
@Suite("Migrator")
struct MigratorTests {
    static let first = [
        Migration(version: 1, name: "0001_widgets", sql: "CREATE TABLE widgets (id bigserial PRIMARY KEY, name text NOT NULL);"),
        Migration(version: 2, name: "0002_gadgets", sql: """
            CREATE TABLE gadgets (id bigint PRIMARY KEY REFERENCES widgets(id));
            CREATE INDEX gadgets_id ON gadgets (id);
            """),
    ]

    @Test("migrations apply once; a second run applies nothing")
    func applyTwice() async throws {
        let logger = TestDatabase.quietLogger
        try await TestDatabase.withPool { pool, _ in
            #expect(try await Migrator.isUpToDate(pool, migrations: Self.first) == false)
            #expect(try await Migrator.migrate(pool, migrations: Self.first.reversed(), logger: logger) == [1, 2])
            #expect(try await Migrator.migrate(pool, migrations: Self.first, logger: logger) == [])
            #expect(try await Migrator.isUpToDate(pool, migrations: Self.first))

            let third = Migration(version: 3, name: "0003_more", sql: "ALTER TABLE widgets ADD COLUMN color text;")
            #expect(try await Migrator.isUpToDate(pool, migrations: Self.first + [third]) == false)
            #expect(try await Migrator.migrate(pool, migrations: Self.first + [third], logger: logger) == [3])
            let ledger = try await pool.query("SELECT version, name FROM schema_migrations ORDER BY version")
            #expect(try ledger.map { try $0.int("version") } == [1, 2, 3])
            #expect(ledger.map { $0["name"] } == ["0001_widgets", "0002_gadgets", "0003_more"])
        }
    }

    @Test("a failing migration rolls back and is not recorded; earlier ones stay")
    func failingMigration() async throws {
        let broken = Migration(version: 2, name: "0002_broken", sql: "CREATE TABLE half (id int); SELECT * FROM no_such_table;")
        try await TestDatabase.withPool { pool, _ in
            let error = await #expect(throws: PostgresError.self) {
                try await Migrator.migrate(pool, migrations: [Self.first[0], broken], logger: TestDatabase.quietLogger)
            }
            #expect(error?.sqlState == "42P01")
            let versions = try await pool.query("SELECT version FROM schema_migrations").map { try $0.int("version") }
            #expect(versions == [1])
            let half = try await pool.query("SELECT to_regclass('half') IS NULL AS absent")
            #expect(try half[0].bool("absent"))
        }
    }

    @Test("two concurrent migrate calls on a fresh schema apply each migration exactly once")
    func concurrentMigrations() async throws {
        // The first migration takes a while, so the two calls overlap.
        let slow = [Migration(version: 1, name: "0001_slow", sql: "SELECT pg_sleep(0.3); CREATE TABLE slow (id int);")]
            + Self.first.map { Migration(version: $0.version + 1, name: $0.name, sql: $0.sql) }
        try await TestDatabase.withPool(size: 2) { pool, schema in
            let base = try await TestDatabase.connectionString()
            let other = PostgresPool(
                configuration: .init(connectionString: TestDatabase.searchPath(schema, in: base), size: 1),
                logger: TestDatabase.quietLogger)
            async let one = Migrator.migrate(pool, migrations: slow, logger: TestDatabase.quietLogger)
            async let two = Migrator.migrate(other, migrations: slow, logger: TestDatabase.quietLogger)
            let applied = try await one + two
            await other.close()
            #expect(applied.sorted() == [1, 2, 3])
            let count = try await pool.query("SELECT count(*) AS n FROM schema_migrations")
            #expect(try count[0].int("n") == 3)
        }
    }

    @Test("the embedded schema applies to a fresh database")
    func embeddedMigrations() async throws {
        #expect(!EmbeddedMigrations.all.isEmpty)
        try await TestDatabase.withPool { pool, _ in
            let applied = try await Migrator.migrate(pool, logger: TestDatabase.quietLogger)
            #expect(applied == EmbeddedMigrations.all.map(\.version))
            #expect(try await Migrator.isUpToDate(pool))
            let apps = try await pool.query("SELECT to_regclass('apps') IS NOT NULL AS present")
            #expect(try apps[0].bool("present"))
        }
    }

    @Test("duplicate versions are refused before anything runs")
    func duplicateVersions() async throws {
        let duplicate = Migration(version: 1, name: "0001_again", sql: "CREATE TABLE again (id int);")
        try await TestDatabase.withPool { pool, _ in
            await #expect(throws: PostgresError.self) {
                try await Migrator.migrate(pool, migrations: Self.first + [duplicate], logger: TestDatabase.quietLogger)
            }
            let ledger = try await pool.query("SELECT to_regclass('schema_migrations') IS NULL AS absent")
            #expect(try ledger[0].bool("absent"))
        }
    }
}
