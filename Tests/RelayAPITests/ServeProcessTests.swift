import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PostgresStore
import Testing
import TestSupport

/// The `pushrelay serve` process as an operator runs it: signals, exit codes, its log.
@Suite struct ServeProcessTests {
    @Test func sigtermFinishesRequestsInFlightAndExitsZero() async throws {
        let port = try TestProcess.freePort()
        let dataDirectory = try temporaryDirectory()
        let database = try await TestDatabase.fresh()
        let process = try await Self.serve(port: port, dataDirectory: dataDirectory, extra: [
            "PUSHRELAY_THREADS": "2", "PUSHRELAY_DATABASE_URL": database, "PUSHRELAY_DB_POOL_SIZE": "16",
        ])
        let log = Pipe()
        process.standardError = log
        process.standardOutput = Pipe()
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        let session = URLSession(configuration: configuration)
        let base = "http://127.0.0.1:\(port)"

        try #require(try await TestProcess.waitUntilReady(process, port: port), "relay did not become ready")

        // Requests surely in flight when SIGTERM comes: each creates an app, and waits in
        // PostgreSQL for a lock on the apps table this test holds until the shutdown has begun.
        // SHARE mode: inserts wait, the worker's and scheduler's reads of apps do not.
        let lock = try await TableLock.take("apps", mode: "SHARE", database: database)
        let pool = lock.pool
        let count = 3
        let requests = Task {
            await withTaskGroup(of: Int.self) { group in
                for index in 0..<count {
                    group.addTask {
                        var request = URLRequest(url: URL(string: "\(base)/admin/v1/apps")!)
                        request.httpMethod = "POST"
                        request.setValue("Bearer \(RelayHarness.adminToken)", forHTTPHeaderField: "Authorization")
                        request.httpBody = Data("{\"name\":\"app \(index)\"}".utf8)
                        // An error is a status of 0, not a thrown error: the group does not cancel the others.
                        let response = try? await session.data(for: request).1
                        return (response as? HTTPURLResponse)?.statusCode ?? 0
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await Self.poll("every request to wait for the lock") {
            try await pool.query("""
                SELECT count(*) AS n FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO apps %'
                """)[0].int("n") == count
        }
        kill(process.processIdentifier, SIGTERM)
        // The graceful shutdown has begun when the API no longer accepts connections.
        try await Self.poll("the API to stop accepting") { !TestProcess.accepts(port: port) }
        await lock.release()
        let statuses = await requests.value
        #expect(statuses.count == count)
        #expect(statuses.allSatisfy { $0 == 201 }, "every request accepted before SIGTERM is answered: \(statuses)")

        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        let lines = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(lines.contains("\"msg\":\"stopped\""))
        // After exit nothing listens on the port any more.
        let after = try? await session.data(from: URL(string: "\(base)/healthz")!)
        #expect(after == nil)
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    @Test func aClosedStandardErrorDoesNotStopTheRelay() async throws {
        let port = try TestProcess.freePort()
        let dataDirectory = try temporaryDirectory()
        let process = try await Self.serve(port: port, dataDirectory: dataDirectory)
        let log = Pipe()
        process.standardError = log
        process.standardOutput = Pipe()
        try process.run()
        // Nobody reads the log any more: every line the relay writes now fails with EPIPE.
        try log.fileHandleForReading.close()

        #expect(try await TestProcess.waitUntilReady(process, port: port))
        let session = URLSession(configuration: .ephemeral)
        for _ in 0..<5 {
            let (_, response) = try await session.data(from: URL(string: "http://127.0.0.1:\(port)/healthz")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
        }
        #expect(process.isRunning)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    @Test func aSecondSIGTERMEndsAHangingShutdownAtOnce() async throws {
        let port = try TestProcess.freePort()
        let dataDirectory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let database = try await TestDatabase.fresh()
        let process = try await Self.serve(port: port, dataDirectory: dataDirectory,
                                                        extra: ["PUSHRELAY_DATABASE_URL": database])
        process.standardError = Pipe()
        process.standardOutput = Pipe()
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        try #require(try await TestProcess.waitUntilReady(process, port: port))

        // A request in flight that cannot finish: it waits for a lock this test holds.
        let lock = try await TableLock.take("apps", database: database)
        let pool = lock.pool
        let request = Task {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/admin/v1/apps")!)
            request.httpMethod = "POST"
            request.setValue("Bearer \(RelayHarness.adminToken)", forHTTPHeaderField: "Authorization")
            request.httpBody = Data(#"{"name":"blocked"}"#.utf8)
            _ = try? await URLSession(configuration: .ephemeral).data(for: request)
        }
        try await Self.poll("the request to wait for the lock") {
            try await pool.query("""
                SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                """)[0].int("n") > 0
        }

        kill(process.processIdentifier, SIGTERM)
        // The graceful shutdown has begun when the API no longer accepts connections.
        try await Self.poll("the API to stop accepting") { !TestProcess.accepts(port: port) }
        #expect(process.isRunning, "the first SIGTERM waits for the request in flight")
        kill(process.processIdentifier, SIGTERM)
        let exited = try await TestProcess.waitUntilExited(process, timeout: .seconds(10))
        await lock.release()
        await request.value
        #expect(exited, "a second SIGTERM ends the process without waiting for the request")
        if exited {
            #expect(process.terminationReason == .exit && process.terminationStatus == 128 + SIGTERM)
        }
    }

    @Test func theEmbeddedClusterDyingEndsTheRelayWithExitOne() async throws {
        let data = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let port = try TestProcess.freePort()
        let (process, _) = try await EmbeddedDefaultsTests.serveEmbedded(data: data, port: port)
        defer { if process.isRunning { process.terminate() } }
        let pidFile = try String(contentsOf: data.appendingPathComponent("postgres/data/postmaster.pid"), encoding: .utf8)
        let postmaster = try #require(pidFile.split(separator: "\n").first.flatMap { Int32($0) })

        // Immediate shutdown, as if the server crashed.
        kill(postmaster, SIGQUIT)
        let exited = try await TestProcess.waitUntilExited(process, timeout: .seconds(60))
        #expect(exited, "the relay notices its database is gone")
        guard exited else { return }
        #expect(process.terminationReason == .exit && process.terminationStatus == 1)
        let log = (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        #expect(String(decoding: log, as: UTF8.self).contains("the embedded PostgreSQL cluster stopped"))
    }

    /// Polls `condition` (bounded) until it holds.
    fileprivate static func poll(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw HarnessError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// `pushrelay serve` on a fresh database, not yet started.
    private static func serve(port: Int, dataDirectory: URL, extra: [String: String] = [:]) async throws -> Process {
        let process = Process()
        process.executableURL = try TestProcess.binary()
        process.arguments = ["serve"]
        var environment = ProcessInfo.processInfo.environment
        environment["PUSHRELAY_DATABASE_URL"] = try await TestDatabase.fresh()
        environment["PUSHRELAY_LISTEN"] = "127.0.0.1:\(port)"
        environment["PUSHRELAY_ADMIN_TOKEN"] = RelayHarness.adminToken
        environment["PUSHRELAY_DATA_DIR"] = dataDirectory.path
        environment.merge(extra) { _, new in new }
        process.environment = environment
        return process
    }
}
