import Foundation
import Testing
@testable import PostgresStore

/// The private cluster: created once, reused across restarts, robust to a crash's leftovers.
@Suite("EmbeddedPostgres")
struct EmbeddedPostgresTests {
    @Test("start → stop → start reuses the cluster and its data")
    func restartReusesCluster() async throws {
        try await withPrivateCluster { cluster, connectionString in
            #expect(connectionString.contains("dbname='pushrelay'"))
            let version = try FileManager.default.attributesOfItem(atPath: cluster.dataDirectory + "/PG_VERSION")[.modificationDate] as? Date
            try await Self.write(marker: "kept", to: connectionString)

            try await onOwnThread { try cluster.stop() }
            let down = PostgresPool(configuration: .init(connectionString: connectionString, size: 1), logger: TestDatabase.quietLogger)
            let error = await #expect(throws: PostgresError.self) { try await down.query("SELECT 1") }
            #expect(error?.isUnavailable == true)
            await down.close()

            let again = try await onOwnThread { try cluster.start() }
            #expect(again == connectionString)
            #expect(try await Self.readMarker(from: again) == "kept")
            let versionAfter = try FileManager.default.attributesOfItem(atPath: cluster.dataDirectory + "/PG_VERSION")[.modificationDate] as? Date
            #expect(version != nil && version == versionAfter)
            // Starting a cluster that is already running is fine too.
            #expect(try await onOwnThread { try cluster.start() } == connectionString)
        }
    }

    @Test("a postmaster.pid left by a crash does not stop the next start")
    func stalePidFile() async throws {
        try await withPrivateCluster { cluster, connectionString in
            try await Self.write(marker: "survivor", to: connectionString)
            try await onOwnThread { try cluster.stop() }
            // Our own PID: a live process, but not a postmaster.
            let pidFile = cluster.dataDirectory + "/postmaster.pid"
            try "\(getpid())\n\(cluster.dataDirectory)\n1700000000\n5432\n".write(toFile: pidFile, atomically: true, encoding: .utf8)
            let again = try await onOwnThread { try cluster.start() }
            #expect(try await Self.readMarker(from: again) == "survivor")
        }
    }

    private static func write(marker: String, to connectionString: String) async throws {
        let pool = PostgresPool(configuration: .init(connectionString: connectionString, size: 1), logger: TestDatabase.quietLogger)
        try await pool.query("CREATE TABLE marker (value text)")
        try await pool.query("INSERT INTO marker VALUES ($1)", [marker])
        await pool.close()
    }

    private static func readMarker(from connectionString: String) async throws -> String {
        let pool = PostgresPool(configuration: .init(connectionString: connectionString, size: 1), logger: TestDatabase.quietLogger)
        do {
            let value = try await pool.query("SELECT value FROM marker")[0].string("value")
            await pool.close()
            return value
        } catch {
            await pool.close()
            throw error
        }
    }
}
