import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PostgresStore

/// The `pushrelay` binary the tests start, and a port to start it on.
public enum TestProcess {
    /// The `pushrelay` binary built beside this test bundle.
    public static func binary() throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("pushrelay")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw TestSetupError("pushrelay binary not found near \(directory.path); run `swift build` first")
    }

    public static func freePort() throws -> Int {
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
        guard bound else { throw TestSetupError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Polls (bounded) until a relay started as `process` answers 200 on
    /// 127.0.0.1:`port`/readyz; false when it exits or the time is up first.
    public static func waitUntilReady(_ process: Process, port: Int, timeout: Duration = .seconds(60)) async throws -> Bool {
        let session = URLSession(configuration: .ephemeral)
        let url = URL(string: "http://127.0.0.1:\(port)/readyz")!
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline && process.isRunning {
            if let (_, response) = try? await session.data(from: url), (response as? HTTPURLResponse)?.statusCode == 200 {
                return true
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Polls (bounded) until `process` has exited; false when the time is up first.
    public static func waitUntilExited(_ process: Process, timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        return !process.isRunning
    }

    /// Runs a program to completion on a thread of its own, failing unless it exits 0.
    ///
    /// - Returns: its standard output and standard error, interleaved.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], in directory: URL? = nil) async throws -> String {
        try await onThreadOfItsOwn { try runBlocking(executable, arguments, in: directory) }
    }

    /// `run` on the calling thread, which it blocks: for synchronous helpers and `defer`s.
    @discardableResult
    public static func runBlocking(_ executable: String, _ arguments: [String], in directory: URL? = nil) throws -> String {
        let outcome = try runner(in: directory).run(executable, arguments)
        guard outcome.status == 0 else {
            throw TestSetupError("\(executable) \(arguments.joined(separator: " ")) exited \(outcome.status): \(outcome.output)")
        }
        return outcome.output
    }

    /// Runs a program to completion on a thread of its own, whatever its exit status.
    ///
    /// - Returns: its exit status, and its standard output and standard error interleaved.
    public static func outcome(_ executable: String, _ arguments: [String], in directory: URL? = nil) async throws
        -> (status: Int32, output: String) {
        let outcome = try await onThreadOfItsOwn { try runner(in: directory).run(executable, arguments) }
        return (outcome.status, outcome.output)
    }

    /// The store's runner (posix_spawn and waitpid): a full test run once hung with only
    /// Foundation's Process thread left, waiting for an exit it never reported.
    private static func runner(in directory: URL?) -> ProgramRunner {
        ProgramRunner(workingDirectory: directory?.path ?? FileManager.default.currentDirectoryPath)
    }

    private static func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}

/// Why a test's set-up could not go on.
struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
