import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `pushrelay serve` as a child process on the harness's database and simulator: what the
/// crash tests kill with SIGKILL and start again.
extension PipelineHarness {
    /// The environment of a relay process listening on `port`, with short leases so a
    /// killed process's chunks come back within seconds.
    func processEnvironment(port: Int, leaseSeconds: Int = 2) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PUSHRELAY_DATABASE_URL"] = databaseURL
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
        return environment
    }

    /// Starts `pushrelay serve` and waits until `/readyz` answers 200.
    static func startProcess(environment: [String: String], base: String) async throws -> Process {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = ["serve"]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
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

    /// The `pushrelay` binary built beside this test bundle.
    static func binary() throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("pushrelay")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw HarnessError("pushrelay binary not found near \(directory.path); run `swift build` first")
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw HarnessError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
