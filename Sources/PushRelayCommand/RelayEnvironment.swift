import Foundation
import PostgresStore
import RelayCore
import RelayCrypto

/// What `serve` and `migrate` share: the configuration, the logger, the database (external
/// or the embedded cluster) and the data directory's files.
struct RelayEnvironment {
    let configuration: RelayConfiguration
    let logger: Logger
    let embedded: EmbeddedPostgres?
    let pool: PostgresPool
    /// The database's libpq connection string (workers open their LISTEN connection with it).
    let connectionString: String

    /// Reads the configuration, makes the data directory, starts the embedded cluster when
    /// no database URL is given, and opens the pool (waiting for the database to answer).
    static func start(component: String) async throws -> RelayEnvironment {
        let configuration: RelayConfiguration
        do {
            configuration = try RelayConfiguration.parse(ProcessInfo.processInfo.environment)
        } catch {
            throw StartError(error.description)
        }
        let logger = Logger(label: "pushrelay.\(component)", level: configuration.logLevel)
        try makeDataDirectory(configuration.dataDirectory)

        var embedded: EmbeddedPostgres?
        let connectionString: String
        if let url = configuration.databaseURL {
            connectionString = url
        } else {
            let cluster = EmbeddedPostgres(directory: configuration.dataDirectory + "/postgres", logger: logger)
            do {
                connectionString = try cluster.start()
            } catch {
                throw StartError("could not start the embedded PostgreSQL cluster: \(error)")
            }
            embedded = cluster
        }
        let pool = PostgresPool(configuration: PostgresPoolConfiguration(connectionString: connectionString,
                                                                         size: configuration.databasePoolSize),
                                logger: logger)
        return RelayEnvironment(configuration: configuration, logger: logger, embedded: embedded, pool: pool,
                                connectionString: connectionString)
    }

    /// Applies pending migrations, retrying while the database is not reachable yet
    /// (a database started beside the relay may take a few seconds).
    func migrate(patience: Duration = .seconds(30)) async throws -> [Int] {
        let deadline = ContinuousClock.now + patience
        var delay = Duration.milliseconds(200)
        while true {
            do {
                return try await Migrator.migrate(pool, logger: logger)
            } catch PostgresError.unavailable(let reason) where ContinuousClock.now + delay < deadline {
                logger.warning("database not reachable yet; retrying", ["reason": reason])
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }

    func stop() async {
        await pool.close()
        guard let embedded else { return }
        // pg_ctl blocks until the server is down: on a thread of its own, not the concurrency pool.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread { [logger] in
                do { try embedded.stop() } catch { logger.error("could not stop the embedded PostgreSQL cluster", ["error": "\(error)"]) }
                continuation.resume()
            }.start()
        }
    }

    /// The relay's key for sealing credentials.
    func secretBox() throws -> SecretBox {
        do {
            return try SecretBox.load(environmentValue: configuration.secretKey,
                                      keyFile: configuration.dataDirectory + "/secret.key")
        } catch {
            throw StartError("secret key: \(error)")
        }
    }

    /// `PUSHRELAY_ADMIN_TOKEN`, or the token kept in the data directory, made (and printed,
    /// once) on first start.
    func adminToken() throws -> String {
        if let token = configuration.adminToken { return token }
        let path = configuration.dataDirectory + "/admin-token"
        if let stored = try? String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
           !stored.isEmpty {
            logger.info("admin token read from the data directory", ["path": path])
            return stored
        }
        let token = SecureRandom.hex(24)
        guard FileManager.default.createFile(atPath: path, contents: Data((token + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw StartError("could not write the admin token to \(path)")
        }
        // Unbuffered, so an operator sees it at once even when stdout is a file.
        StandardStream.output.write("pushrelay: generated an admin token (kept in \(path)): \(token)\n")
        return token
    }

    private static func makeDataDirectory(_ path: String) throws {
        do {
            // 0711: the embedded cluster runs as `postgres` when we are root and must be able
            // to pass through; nobody else may list it, and its secret files are 0600.
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o711])
            if getuid() == 0, let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int,
               mode & 0o011 != 0o011 {
                try FileManager.default.setAttributes([.posixPermissions: mode | 0o011], ofItemAtPath: path)
            }
        } catch {
            throw StartError("cannot create the data directory \(path): \(error.localizedDescription)")
        }
        guard FileManager.default.isWritableFile(atPath: path) else {
            throw StartError("the data directory \(path) is not writable")
        }
    }
}

/// A start-up failure with a message for the operator.
struct StartError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
