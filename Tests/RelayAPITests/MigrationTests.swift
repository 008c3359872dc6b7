import Foundation
import PostgresStore
import Testing
import TestSupport

@Suite struct MigrationTests {
    @Test func theRealMigrationsApplyTwiceWithoutError() async throws {
        let url = try await TestDatabase.fresh()
        let pool = PostgresPool(configuration: PostgresPoolConfiguration(connectionString: url, size: 2), logger: TestDatabase.quietLogger)
        let first = try await Migrator.migrate(pool, logger: TestDatabase.quietLogger)
        #expect(first == EmbeddedMigrations.all.map(\.version))
        #expect(!first.isEmpty)
        let second = try await Migrator.migrate(pool, logger: TestDatabase.quietLogger)
        #expect(second.isEmpty)
        #expect(try await Migrator.isUpToDate(pool))
        await pool.close()
    }

    @Test func migrationVersionsAreUniqueAndOrdered() {
        let versions = EmbeddedMigrations.all.map(\.version)
        #expect(versions == versions.sorted())
        #expect(Set(versions).count == versions.count)
        #expect(versions.first == 1)
    }
}
