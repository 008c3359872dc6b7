import Foundation
import TestSupport

/// A PgBouncer child process in front of the test PostgreSQL, listening on 127.0.0.1 (a free
/// port), with its configuration, log and pid file in a temporary directory of its own.
final class PgBouncer: Sendable {
    enum PoolMode: String, Sendable {
        case session, transaction
    }

    /// The installed `pgbouncer`, nil when there is none (its tests are skipped then).
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/usr/local/bin"]
        return directories.map { $0 + "/pgbouncer" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    let port: Int
    let directory: URL
    let mode: PoolMode
    private let process: Process

    private init(port: Int, directory: URL, mode: PoolMode, process: Process) {
        self.port = port
        self.directory = directory
        self.mode = mode
        self.process = process
    }

    /// Starts PgBouncer in front of the server of `databaseURL` (a key=value connection
    /// string on a unix socket, as `TestDatabase.fresh()` returns) and waits until it accepts.
    ///
    /// - Parameter serverConnections: `default_pool_size`, the server connections per
    ///   database and user.
    static func start(mode: PoolMode, serverConnections: Int, for databaseURL: String) async throws -> PgBouncer {
        guard let executable else { throw HarnessError("pgbouncer is not installed") }
        let settings = parameters(databaseURL)
        guard let host = settings["host"] else { throw HarnessError("no host= in \(databaseURL)") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-pgbouncer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try TestProcess.freePort()
        let user = settings["user"] ?? "postgres"
        // `*`: every database name is passed on to the same server; auth_type trust still
        // wants the user listed in auth_file.
        let configuration = """
            [databases]
            * = host=\(host) port=\(settings["port"] ?? "5432")

            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir =
            auth_type = trust
            auth_file = \(directory.path)/users.txt
            pool_mode = \(mode.rawValue)
            default_pool_size = \(serverConnections)
            max_client_conn = 500
            logfile = \(directory.path)/pgbouncer.log
            pidfile = \(directory.path)/pgbouncer.pid

            """
        try configuration.write(to: directory.appendingPathComponent("pgbouncer.ini"), atomically: true, encoding: .utf8)
        try "\"\(user)\" \"\"\n".write(to: directory.appendingPathComponent("users.txt"), atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        var arguments = [directory.appendingPathComponent("pgbouncer.ini").path]
        if getuid() == 0 {
            // PgBouncer refuses to run as root: it switches to `postgres`, which must own its files.
            arguments = ["-u", "postgres"] + arguments
            try FileManager.default.setAttributes([.ownerAccountName: "postgres", .posixPermissions: 0o755], ofItemAtPath: directory.path)
        }
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let bouncer = PgBouncer(port: port, directory: directory, mode: mode, process: process)
        do {
            try await poll(timeout: .seconds(10), "pgbouncer to accept on port \(port)") { () -> Bool? in
                guard process.isRunning else { throw HarnessError("pgbouncer exited \(process.terminationStatus): \(bouncer.log)") }
                return TestProcess.accepts(port: port) ? true : nil
            }
        } catch {
            bouncer.stop()
            throw error
        }
        return bouncer
    }

    /// `databaseURL` with its host and port replaced by PgBouncer's.
    func url(for databaseURL: String) -> String {
        var settings = Self.parameters(databaseURL)
        settings["host"] = "127.0.0.1"
        settings["port"] = String(port)
        return settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// What PgBouncer logged so far.
    var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("pgbouncer.log"), encoding: .utf8)) ?? ""
    }

    /// Stops PgBouncer (its server connections close with it) and removes its directory.
    func stop() {
        // SIGKILL: the child inherits the test thread's signal mask, which blocks SIGTERM.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The key=value pairs of a libpq connection string without quoting (the last of a
    /// repeated key wins, as in libpq).
    private static func parameters(_ url: String) -> [String: String] {
        var settings: [String: String] = [:]
        for pair in url.split(separator: " ") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            settings[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return settings
    }
}
