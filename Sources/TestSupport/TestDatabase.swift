import Foundation
import PostgresStore
import RelayCore

/// A fresh database for each test, on the PostgreSQL the Makefile started
/// (`PUSHRELAY_TEST_DATABASE_URL`, key=value form) or, without it, on a private cluster
/// this test process starts in a temporary directory.
public enum TestDatabase {
    private static let server = ServerHolder()

    /// The connection string of a new, empty database.
    public static func fresh() async throws -> String {
        let admin = try await server.adminURL()
        let name = "pushrelay_test_\(UUID().uuidString.prefix(8).lowercased())"
        let pool = PostgresPool(configuration: PostgresPoolConfiguration(connectionString: admin, size: 1), logger: quietLogger)
        _ = try await pool.query("CREATE DATABASE \(name)")
        await pool.close()
        return admin + " dbname=\(name)"
    }

    public static let quietLogger = Logger(label: "test", level: .error)

    /// Runs `body` with a pool on a fresh, migrated database; the pool is closed afterwards,
    /// whether `body` threw or not.
    public static func withMigratedPool(size: Int = 2, _ body: (PostgresPool) async throws -> Void) async throws {
        let pool = PostgresPool(configuration: PostgresPoolConfiguration(connectionString: try await fresh(), size: size), logger: quietLogger)
        do {
            _ = try await Migrator.migrate(pool, logger: quietLogger)
            try await body(pool)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }

    private actor ServerHolder {
        private var url: String?
        private var cluster: EmbeddedPostgres?

        func adminURL() throws -> String {
            if let url { return url }
            if let given = ProcessInfo.processInfo.environment["PUSHRELAY_TEST_DATABASE_URL"], !given.isEmpty {
                url = given
                return given
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-tests-\(getpid())").path
            let cluster = EmbeddedPostgres(directory: directory, logger: TestDatabase.quietLogger)
            let started = try cluster.start()
            self.cluster = cluster
            url = started
            return started
        }
    }
}
