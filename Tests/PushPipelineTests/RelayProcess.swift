import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport

/// `pushrelay serve` as a child process of a test, pointed at a harness's database and
/// simulator.
enum RelayProcess {
    /// Starts `pushrelay serve` with `arguments`; when `base` is given (a role with the API),
    /// waits until its `/readyz` answers 200.
    static func start(arguments: [String] = ["serve"], environment: [String: String], base: String?) async throws -> Process {
        let process = Process()
        process.executableURL = try TestProcess.binary()
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard let base else { return process }
        do {
            try await poll(timeout: .seconds(60), interval: .milliseconds(50), "the relay to be ready") {
                guard process.isRunning else { throw HarnessError("pushrelay serve exited \(process.terminationStatus)") }
                let response = try? await URLSession.shared.data(from: URL(string: "\(base)/readyz")!).1
                return (response as? HTTPURLResponse)?.statusCode == 200 ? true : nil
            }
        } catch {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            throw error
        }
        return process
    }

    /// Stops the processes still running (SIGTERM) and waits for them.
    static func stop(_ processes: [Process]) {
        for process in processes where process.isRunning { process.terminate() }
        for process in processes { process.waitUntilExit() }
    }
}

extension PipelineHarness {
    /// The environment of a `pushrelay serve` process sharing this harness's database,
    /// simulator and pipeline tuning, with its API (if it runs one) on `port`; short leases
    /// by default, so a killed process's chunks come back within seconds.
    func processEnvironment(port: Int, leaseSeconds: Int = 2) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PUSHRELAY_DATABASE_URL"] = relay.databaseURL
        environment["PUSHRELAY_LISTEN"] = "127.0.0.1:\(port)"
        environment["PUSHRELAY_ADMIN_TOKEN"] = Self.adminToken
        environment["PUSHRELAY_DATA_DIR"] = directory.appendingPathComponent("data").path
        environment["PUSHRELAY_THREADS"] = "2"
        environment["PUSHRELAY_LOG_LEVEL"] = "error"
        environment["PUSHRELAY_APNS_PRODUCTION_URL"] = pipeline.productionURL.absoluteString
        environment["PUSHRELAY_APNS_SANDBOX_URL"] = pipeline.sandboxURL.absoluteString
        environment["PUSHRELAY_APNS_CA_FILE"] = pipeline.caFile
        environment["PUSHRELAY_CHUNK_LEASE_SECONDS"] = String(leaseSeconds)
        environment["PUSHRELAY_CHUNK_SIZE"] = String(pipeline.chunkSize)
        environment["PUSHRELAY_WORKER_SLOTS"] = String(pipeline.slots)
        environment["PUSHRELAY_WORKER_TARGETED_SLOTS"] = String(pipeline.targetedSlots)
        return environment
    }
}
