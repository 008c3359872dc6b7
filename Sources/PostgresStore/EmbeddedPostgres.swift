import Foundation
import RelayCore
import Synchronization

/// A private PostgreSQL cluster kept under a directory of ours, for a first run and for tests.
///
/// `initdb` runs on first use and the cluster is reused afterwards. The server listens on a
/// unix socket inside its 0700 data directory only (`listen_addresses = ''`), so trust
/// authentication admits nobody but us. As root, the cluster runs as the `postgres` user,
/// since PostgreSQL refuses to run as root. While this process lives, a watchdog waits to
/// stop the server should it die without calling `stop()` (`PostmasterWatchdog`).
///
/// Every method blocks while the programs run: call them from a thread of your own.
public final class EmbeddedPostgres: Sendable {
    /// The directory holding the cluster (`data/`) and its log (`postgres.log`).
    public let directory: String
    private let logger: Logger
    private let watchdog = Mutex<PostmasterWatchdog?>(nil)

    static let databaseName = "pushrelay"
    static let superuser = "postgres"
    static let port = 5432
    /// The system user the server runs as when we are root.
    static let systemUser = "postgres"

    var dataDirectory: String { directory + "/data" }
    private var logFile: String { directory + "/postgres.log" }
    private var pidFile: String { dataDirectory + "/postmaster.pid" }

    public init(directory: String, logger: Logger) {
        self.directory = URL(fileURLWithPath: directory).standardizedFileURL.path
        self.logger = logger.with(["postgres_dir": self.directory])
    }

    /// Starts the cluster, creating it first if needed, and returns a libpq connection string
    /// for its `pushrelay` database (created when missing).
    ///
    /// A cluster already running from this directory is reused; a `postmaster.pid` left by a
    /// crash is removed. Either way, the server stops when this process dies.
    ///
    /// - Throws: `PostgresError.unavailable` with the programs' output when anything fails.
    public func start() throws -> String {
        let binaries = try PostgresInstallation.binDirectory()
        let runner = try prepareDirectory()
        let socketPath = dataDirectory + "/.s.PGSQL.\(Self.port)"
        guard socketPath.utf8.count < 108 else {
            throw PostgresError.unavailable("the socket path \(socketPath) is too long for a unix socket; choose a shorter directory")
        }
        if !FileManager.default.fileExists(atPath: dataDirectory + "/PG_VERSION") {
            try initialize(binaries: binaries, runner: runner)
        }
        try writeSettings()
        if try isRunning() {
            logger.info("embedded postgres already running")
        } else {
            let outcome = try runner.run(binaries + "/pg_ctl", [
                "-D", dataDirectory, "-l", logFile, "-w", "-t", "60", "start",
            ])
            guard outcome.status == 0 else {
                throw PostgresError.unavailable(
                    "pg_ctl start failed (exit \(outcome.status)): \(outcome.output)\n\(logTail())")
            }
            logger.info("embedded postgres started")
        }
        try watch()
        try createDatabase()
        return connectionString(database: Self.databaseName)
    }

    /// Stops the cluster (`pg_ctl -m fast stop`); nothing to do when it is not running.
    public func stop() throws {
        watchdog.withLock { current in
            current?.standDown()
            current = nil
        }
        guard try isRunning() else { return }
        let runner = ProgramRunner(user: serverUser(), workingDirectory: directory)
        let outcome = try runner.run(try PostgresInstallation.binDirectory() + "/pg_ctl", [
            "-D", dataDirectory, "-m", "fast", "-w", "-t", "60", "stop",
        ])
        guard outcome.status == 0 else {
            throw PostgresError.unavailable("pg_ctl stop failed (exit \(outcome.status)): \(outcome.output)")
        }
        logger.info("embedded postgres stopped")
    }

    /// Whether the server `start()` started (or reused) still runs: false once it has
    /// died or been stopped.
    public var isServing: Bool {
        guard let postmaster = watchdog.withLock({ $0?.postmaster }) else { return false }
        return isOurPostmaster(postmaster)
    }

    /// A libpq connection string for `database` over the cluster's socket.
    func connectionString(database: String) -> String {
        "host=\(PostgresText.conninfoValue(dataDirectory)) port=\(Self.port) "
            + "dbname=\(PostgresText.conninfoValue(database)) user=\(Self.superuser)"
    }

    /// Whether a server from this data directory is running; removes a stale `postmaster.pid`.
    private func isRunning() throws -> Bool {
        guard let contents = try? String(contentsOfFile: pidFile, encoding: .utf8) else { return false }
        if let pid = PostmasterPID.pid(fromPidFile: contents), isOurPostmaster(pid) { return true }
        // A crash left the file behind (its PID is gone or now some other process's):
        // PostgreSQL would refuse to start while it names a live process.
        logger.warning("removing stale postmaster.pid", ["pid_file": contents.split(separator: "\n").first.map(String.init) ?? ""])
        try FileManager.default.removeItem(atPath: pidFile)
        for stale in [".s.PGSQL.\(Self.port)", ".s.PGSQL.\(Self.port).lock"] {
            try? FileManager.default.removeItem(atPath: dataDirectory + "/" + stale)
        }
        return false
    }

    /// Puts a watchdog on the running postmaster, unless one watches it already.
    private func watch() throws {
        guard let contents = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let pid = PostmasterPID.pid(fromPidFile: contents) else {
            throw PostgresError.unavailable("the embedded PostgreSQL started but \(pidFile) names no process")
        }
        try watchdog.withLock { current in
            if current?.postmaster == pid { return }
            current?.standDown()
            current = try PostmasterWatchdog(postmaster: pid)
        }
    }

    /// True when `pid` is a live postgres process started on our data directory.
    private func isOurPostmaster(_ pid: Int32) -> Bool {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM,
              let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
              comm.trimmingCharacters(in: .whitespacesAndNewlines) == "postgres",
              let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return arguments.contains(dataDirectory)
    }

    /// Creates the directory (0700) and, as root, hands it to the `postgres` user.
    private func prepareDirectory() throws -> ProgramRunner {
        let user = serverUser()
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
        } catch {
            throw PostgresError.unavailable("cannot create \(directory): \(error)")
        }
        if let user {
            guard let account = getpwnam(user) else {
                throw PostgresError.unavailable("running as root needs a '\(user)' system user to run PostgreSQL as")
            }
            guard chown(directory, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
                throw PostgresError.unavailable("cannot chown \(directory) to \(user): \(String(cString: strerror(errno)))")
            }
        }
        return ProgramRunner(user: user, workingDirectory: directory)
    }

    /// The user the server runs as: `postgres` when we are root, else ourselves (nil).
    private func serverUser() -> String? {
        geteuid() == 0 ? Self.systemUser : nil
    }

    private func initialize(binaries: String, runner: ProgramRunner) throws {
        logger.info("initializing embedded postgres cluster")
        let outcome = try runner.run(binaries + "/initdb", [
            "-D", dataDirectory, "--auth=trust", "--username=\(Self.superuser)",
            "--encoding=UTF8", "--no-locale",
        ])
        guard outcome.status == 0 else {
            var message = "initdb failed (exit \(outcome.status)): \(outcome.output)"
            if runner.user != nil {
                message += "\n(initdb runs as '\(Self.systemUser)', which must be able to reach \(directory))"
            }
            throw PostgresError.unavailable(message)
        }
        // Our settings live in a file of their own, rewritten on every start.
        let include = "\n# Added by PushRelay.\ninclude_if_exists = 'pushrelay.conf'\n"
        let conf = dataDirectory + "/postgresql.conf"
        guard let handle = FileHandle(forWritingAtPath: conf) else {
            throw PostgresError.unavailable("cannot open \(conf)")
        }
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(include.utf8))
    }

    /// Socket only, inside the data directory; rewritten each start in case it moved.
    private func writeSettings() throws {
        let quotedDirectory = "'" + dataDirectory.replacingOccurrences(of: "'", with: "''") + "'"
        let settings = """
            # Written by PushRelay on every start; edits here are lost.
            listen_addresses = ''
            port = \(Self.port)
            unix_socket_directories = \(quotedDirectory)
            unix_socket_permissions = 0700

            """
        let path = dataDirectory + "/pushrelay.conf"
        do {
            try Data(settings.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw PostgresError.unavailable("cannot write \(path): \(error)")
        }
        if let user = serverUser(), let account = getpwnam(user) {
            _ = chown(path, account.pointee.pw_uid, account.pointee.pw_gid)
        }
    }

    private func createDatabase() throws {
        let connection = try PostgresConnection(connectionString: connectionString(database: "postgres"), logger: logger)
        let existing = try connection.query("SELECT 1 FROM pg_database WHERE datname = $1", [Self.databaseName])
        guard existing.isEmpty else { return }
        do {
            try connection.execute("CREATE DATABASE \(PostgresText.identifier(Self.databaseName))")
        } catch PostgresError.server(let state, _) where state == .duplicateDatabase {
            // Created meanwhile by another process starting the same cluster.
        }
    }

    private func logTail() -> String {
        guard let log = try? String(contentsOfFile: logFile, encoding: .utf8) else { return "(no server log at \(logFile))" }
        return "server log (\(logFile)), last lines:\n" + log.split(separator: "\n").suffix(20).joined(separator: "\n")
    }
}

/// Reading `postmaster.pid`, whose first line is the postmaster's PID.
enum PostmasterPID {
    static func pid(fromPidFile contents: String) -> Int32? {
        guard let first = contents.split(separator: "\n", omittingEmptySubsequences: false).first else { return nil }
        return Int32(first.trimmingCharacters(in: .whitespaces))
    }
}
