import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestSupport

/// What `make run` relies on: `serve` with no configuration at all starts its own cluster,
/// makes its own admin token and secret key, and leaves nothing running when it stops; and
/// `pushrelay migrate` applies the schema once.
@Suite struct EmbeddedDefaultsTests {
    static func run(_ arguments: [String], environment extra: [String: String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try TestProcess.binary()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHRELAY_") || $0.key == "PUSHRELAY_TEST_DATABASE_URL" }
        environment.merge(extra) { $1 }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func migrateAppliesTheSchemaOnce() async throws {
        let url = try await TestDatabase.fresh()
        let first = try Self.run(["migrate"], environment: ["PUSHRELAY_DATABASE_URL": url, "PUSHRELAY_DATA_DIR": try temporaryDirectory().path])
        #expect(first.status == 0)
        #expect(first.output.contains("applied migrations 1"))
        let second = try Self.run(["migrate"], environment: ["PUSHRELAY_DATABASE_URL": url, "PUSHRELAY_DATA_DIR": try temporaryDirectory().path])
        #expect(second.status == 0)
        #expect(second.output.contains("database is up to date"))
    }

    @Test func badConfigurationIsAClearErrorAndANonZeroExit() throws {
        let result = try Self.run(["serve"], environment: ["PUSHRELAY_LISTEN": "nonsense"])
        #expect(result.status != 0)
        let unknown = try Self.run(["frobnicate"], environment: [:])
        #expect(unknown.status == 2)
    }

    /// `pushrelay serve` with nothing configured but a data directory and an address, once it is ready.
    static func serveEmbedded(data: URL, port: Int) async throws -> (process: Process, output: Pipe) {
        let process = Process()
        process.executableURL = try TestProcess.binary()
        process.arguments = ["serve"]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHRELAY_") }
        environment["PUSHRELAY_DATA_DIR"] = data.path
        environment["PUSHRELAY_LISTEN"] = "127.0.0.1:\(port)"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()

        let ready = try await TestProcess.waitUntilReady(process, port: port, timeout: .seconds(90))
        if !ready { process.terminate() }
        try #require(ready)
        return (process, output)
    }

    @Test func serveWithNoConfigurationRunsAndStopsItsOwnCluster() async throws {
        let data = try temporaryDirectory()
        let port = try TestProcess.freePort()
        let (process, output) = try await Self.serveEmbedded(data: data, port: port)
        let session = URLSession(configuration: .ephemeral)

        // The generated admin token: in a 0600 file, and it opens the admin API.
        let tokenFile = data.appendingPathComponent("admin-token")
        let token = try String(contentsOf: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let mode = try FileManager.default.attributesOfItem(atPath: tokenFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let keyMode = try FileManager.default.attributesOfItem(atPath: data.appendingPathComponent("secret.key").path)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/admin/v1/apps")!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed.contains(token), "the generated token is printed once at start")
        // The cluster stopped with the relay.
        let pidFile = data.appendingPathComponent("postgres/data/postmaster.pid").path
        #expect(!FileManager.default.fileExists(atPath: pidFile))
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("postgres/data/PG_VERSION").path))
        try? FileManager.default.removeItem(at: data)
    }

    @Test func aKilledRelayLeavesNoPostgreSQLRunning() async throws {
        let data = try temporaryDirectory()
        let (process, _) = try await Self.serveEmbedded(data: data, port: try TestProcess.freePort())
        let pidFile = data.appendingPathComponent("postgres/data/postmaster.pid").path
        let contents = try String(contentsOfFile: pidFile, encoding: .utf8)
        let postmaster = try #require(contents.split(separator: "\n").first.flatMap { Int32($0) })
        #expect(Self.isRunning(postmaster))

        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let deadline = ContinuousClock.now + .seconds(30)
        while Self.isRunning(postmaster) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!Self.isRunning(postmaster), "the postmaster outlived the relay by 30 s")
        #expect(!FileManager.default.fileExists(atPath: pidFile), "a fast shutdown removes postmaster.pid")
        try? FileManager.default.removeItem(at: data)
    }

    /// Whether `pid` is a process that has not exited (a zombie has).
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[close...].hasPrefix(") Z")
    }
}
