import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestSupport

/// The `pushrelay serve` process as an operator runs it.
@Suite struct ServeProcessTests {
    @Test func sigtermFinishesRequestsInFlightAndExitsZero() async throws {
        let port = try TestProcess.freePort()
        let dataDirectory = try temporaryDirectory()
        let process = try await Self.serve(port: port, dataDirectory: dataDirectory, extra: ["PUSHRELAY_THREADS": "2"])
        let log = Pipe()
        process.standardError = log
        process.standardOutput = Pipe()
        try process.run()

        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        let session = URLSession(configuration: configuration)
        let base = "http://127.0.0.1:\(port)"

        // Ready when /readyz answers 200 (polled, bounded).
        let deadline = ContinuousClock.now + .seconds(60)
        var ready = false
        while !ready && ContinuousClock.now < deadline && process.isRunning {
            if let (_, response) = try? await session.data(from: URL(string: "\(base)/readyz")!),
               (response as? HTTPURLResponse)?.statusCode == 200 {
                ready = true
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        try #require(ready, "relay did not become ready")

        // Creating an app runs the slow secret hash, so a burst of them is still in flight
        // when the first one answers; SIGTERM goes then.
        let count = 16
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask {
                    var request = URLRequest(url: URL(string: "\(base)/admin/v1/apps")!)
                    request.httpMethod = "POST"
                    request.setValue("Bearer \(RelayHarness.adminToken)", forHTTPHeaderField: "Authorization")
                    request.httpBody = Data("{\"name\":\"app \(index)\"}".utf8)
                    let (_, response) = try await session.data(for: request)
                    return (response as? HTTPURLResponse)?.statusCode ?? 0
                }
            }
            var statuses: [Int] = []
            for try await status in group {
                if statuses.isEmpty { kill(process.processIdentifier, SIGTERM) }
                statuses.append(status)
            }
            return statuses
        }
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

        let session = URLSession(configuration: .ephemeral)
        let deadline = ContinuousClock.now + .seconds(60)
        var status = 0
        while status != 200 && ContinuousClock.now < deadline && process.isRunning {
            if let (_, response) = try? await session.data(from: URL(string: "http://127.0.0.1:\(port)/readyz")!) {
                status = (response as? HTTPURLResponse)?.statusCode ?? 0
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(status == 200)
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
