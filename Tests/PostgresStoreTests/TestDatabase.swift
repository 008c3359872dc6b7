import Foundation
import RelayCore
import Synchronization
@testable import PostgresStore

/// The PostgreSQL server the tests share: `PUSHRELAY_TEST_DATABASE_URL` when set, otherwise
/// an embedded cluster in a temporary directory, started once per test process and stopped
/// when it exits.
enum TestDatabase {
    /// Silent unless `PUSHRELAY_TEST_LOG` is set (then debug lines go to standard error).
    static let quietLogger = ProcessInfo.processInfo.environment["PUSHRELAY_TEST_LOG"] == nil
        ? Logger(label: "test", level: .critical, sink: { _ in })
        : Logger(label: "test", level: .debug)

    private static let server = Task<String, any Error> {
        if let url = ProcessInfo.processInfo.environment["PUSHRELAY_TEST_DATABASE_URL"], !url.isEmpty {
            return url
        }
        let cluster = EmbeddedPostgres(directory: temporaryDirectory("shared"), logger: quietLogger)
        sharedCluster.withLock { $0 = cluster }
        atexit {
            guard let cluster = sharedCluster.withLock({ $0 }) else { return }
            try? cluster.stop()
            try? FileManager.default.removeItem(atPath: cluster.directory)
        }
        return try await onOwnThread { try cluster.start() }
    }

    static func connectionString() async throws -> String {
        try await server.value
    }

    /// Runs `body` with a pool whose connections see only a fresh schema of their own, so
    /// tests can run in parallel; the schema is dropped afterwards.
    static func withPool<T>(
        size: Int = 2,
        acquireTimeout: Duration = .seconds(5),
        maxWaiting: Int = 1024,
        _ body: (PostgresPool, _ schema: String) async throws -> T
    ) async throws -> T {
        let base = try await connectionString()
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = PostgresPool(configuration: .init(connectionString: base, size: 1), logger: quietLogger)
        try await admin.query("CREATE SCHEMA \(PostgresText.identifier(schema))")
        let pool = PostgresPool(
            configuration: .init(connectionString: searchPath(schema, in: base), size: size,
                                 acquireTimeout: acquireTimeout, maxWaiting: maxWaiting),
            logger: quietLogger)
        do {
            let result = try await body(pool, schema)
            await pool.close()
            try await admin.query("DROP SCHEMA \(PostgresText.identifier(schema)) CASCADE")
            await admin.close()
            return result
        } catch {
            await pool.close()
            _ = try? await admin.query("DROP SCHEMA \(PostgresText.identifier(schema)) CASCADE")
            await admin.close()
            throw error
        }
    }

    /// `connectionString` with `search_path` set to `schema` alone.
    static func searchPath(_ schema: String, in connectionString: String) -> String {
        if connectionString.hasPrefix("postgres://") || connectionString.hasPrefix("postgresql://") {
            let separator = connectionString.contains("?") ? "&" : "?"
            return connectionString + separator + "options=-csearch_path%3D" + schema
        }
        return connectionString + " options='-csearch_path=\(schema)'"
    }

    /// A fresh directory path under the system's temporary directory (not yet created).
    static func temporaryDirectory(_ purpose: String) -> String {
        FileManager.default.temporaryDirectory
            .appending(path: "pushrelay-pg-\(purpose)-\(UUID().uuidString.prefix(8))").path
    }
}

private let sharedCluster = Mutex<EmbeddedPostgres?>(nil)

/// Runs blocking `body` on a thread of its own, off the Swift concurrency pool.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Runs `body` with a private embedded cluster of its own (for tests that stop the server),
/// stopping and deleting it afterwards.
func withPrivateCluster<T>(_ body: (EmbeddedPostgres, _ connectionString: String) async throws -> T) async throws -> T {
    let cluster = EmbeddedPostgres(directory: TestDatabase.temporaryDirectory("private"), logger: TestDatabase.quietLogger)
    defer { try? FileManager.default.removeItem(atPath: cluster.directory) }
    do {
        let connectionString = try await onOwnThread { try cluster.start() }
        let result = try await body(cluster, connectionString)
        try await onOwnThread { try cluster.stop() }
        return result
    } catch {
        _ = try? await onOwnThread { try cluster.stop() }
        throw error
    }
}

extension PostgresError {
    var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }

    var sqlState: SQLState? {
        if case .server(let sqlState, _) = self { return sqlState }
        return nil
    }
}
