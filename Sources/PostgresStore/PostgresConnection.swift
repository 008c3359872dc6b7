import CSystem
import Foundation
import RelayCore

/// One libpq connection (`PGconn`), used synchronously.
///
/// Thread rule: a connection belongs to the pool thread that opened it and is only ever used
/// there, inside the closure given to `PostgresPool.withConnection`; it is deliberately not
/// `Sendable`. Every call blocks that thread, never the Swift concurrency pool.
public final class PostgresConnection {
    let handle: OpaquePointer
    private let notices: NoticeLog
    /// Names of the statements prepared on this connection (see `preparedQuery`).
    var preparedNames: Set<String> = []

    /// Connection parameters the caller's connection string may override: the string is
    /// expanded after them, and libpq keeps the last value of a repeated keyword.
    static let defaultParameters: [(keyword: String, value: String)] = [
        ("connect_timeout", "5"),   // no hang on an unreachable host
        ("keepalives", "1"),        // notice a dead peer on an idle TCP connection
        ("keepalives_idle", "30"),
        ("keepalives_interval", "10"),
        ("keepalives_count", "3"),
        ("application_name", "pushrelay"),
        ("client_encoding", "UTF8"),
    ]

    /// Connects, and fixes the session settings our decoders rely on.
    ///
    /// - Throws: `PostgresError.unavailable` when the server cannot be reached.
    init(connectionString: String, logger: Logger) throws {
        let keywords = Self.defaultParameters.map(\.keyword) + ["dbname"]
        let values = Self.defaultParameters.map(\.value) + [connectionString]
        let handle = withCStrings(keywords + [nil]) { keywords in
            withCStrings(values + [nil]) { values in
                PQconnectdbParams(keywords, values, 1)
            }
        }
        guard let handle else { throw PostgresError.unavailable("libpq could not allocate a connection") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.errorMessage(handle)
            PQfinish(handle)
            throw PostgresError.unavailable("could not connect: \(message)")
        }
        self.handle = handle
        notices = NoticeLog(logger: logger)
        // Notices (e.g. "relation already exists, skipping") go to our log, not raw to stderr.
        PQsetNoticeProcessor(handle, { context, message in
            guard let context, let message else { return }
            let log = Unmanaged<NoticeLog>.fromOpaque(context).takeUnretainedValue()
            log.logger.debug("postgres notice", ["notice": String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)])
        }, Unmanaged.passUnretained(notices).toOpaque())
        // No JIT: the relay's statements are short, and PostgreSQL compiles one whose estimate
        // passes jit_above_cost on every call. The chunk read's token CASE (subplans costed per
        // device, never run for a notification token) estimated 553,000: 1.6 s of JIT a chunk,
        // 1,824 devices/s against ~30,000 without JIT (bench-fanout, 200,000 devices, 2026-12-03).
        try execute("SET TimeZone TO 'UTC'; SET DateStyle TO 'ISO, YMD'; SET bytea_output TO 'hex'; SET jit TO off")
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection can still carry statements.
    var isUsable: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether the server is still there, checked without blocking: reads whatever arrived
    /// while the connection sat idle, so a server that shut down or restarted (and closed the
    /// socket) is noticed before a statement is sent, not by its failure.
    func isAlive() -> Bool {
        PQconsumeInput(handle) == 1 && isUsable
    }

    /// Where the session stands: idle, inside a transaction, or in a failed transaction.
    var transactionStatus: PGTransactionStatusType { PQtransactionStatus(handle) }

    /// Runs one statement with parameters bound as `$1`, `$2`, … in text format.
    ///
    /// - Parameters:
    ///   - sql: a single statement; values never go into this text, only into `params`.
    ///   - params: one value per placeholder; `nil` (or a nil Optional) sends NULL.
    /// - Throws: `PostgresError.server` for an error the server reported,
    ///   `.unavailable` when the connection broke.
    @discardableResult
    public func query(_ sql: String, _ params: [(any PostgresBindable)?] = []) throws -> PostgresRows {
        guard params.count <= Int(UInt16.max) else {
            throw PostgresError.protocolViolation("too many parameters: \(params.count)")
        }
        let texts = params.map { $0?.postgresText }
        if let index = texts.firstIndex(where: { $0?.utf8.contains(0) == true }) {
            throw PostgresError.protocolViolation("parameter $\(index + 1) contains a NUL byte")
        }
        let result = withCStrings(texts) { values in
            PQexecParams(handle, sql, Int32(texts.count), nil, values, nil, nil, 0)
        }
        return try rows(from: result)
    }

    /// Runs a script of one or more statements without parameters (migrations).
    public func execute(_ sqlScript: String) throws {
        _ = try rows(from: PQexec(handle, sqlScript))
    }

    /// Runs `body` inside `BEGIN`/`COMMIT`, rolling back when it throws.
    ///
    /// A transaction in which a statement failed is rolled back and reported, even when
    /// `body` caught that statement's error and returned normally.
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try query("BEGIN")
        let value: T
        do {
            value = try body(self)
        } catch {
            rollbackQuietly()
            throw error
        }
        if transactionStatus == PQTRANS_INERROR {
            rollbackQuietly()
            throw PostgresError.protocolViolation("a statement in the transaction failed; it was rolled back")
        }
        try query("COMMIT")
        return value
    }

    /// Ends whatever transaction is open; the caller is already reporting another error.
    func rollbackQuietly() {
        _ = try? query("ROLLBACK")
    }

    func rows(from result: OpaquePointer?) throws -> PostgresRows {
        guard let result else {
            throw PostgresError.statementFailed(sqlState: nil, message: Self.errorMessage(handle), connectionUsable: isUsable)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            break
        default:
            throw PostgresError.statementFailed(
                sqlState: PQresultErrorField(result, CSystem_PG_DIAG_SQLSTATE).map { String(cString: $0) },
                message: PQresultErrorField(result, CSystem_PG_DIAG_MESSAGE_PRIMARY).map { String(cString: $0) }
                    ?? String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines),
                connectionUsable: isUsable)
        }
        let fieldCount = PQnfields(result)
        var columns: [String: Int] = [:]
        for field in 0..<fieldCount {
            let name = String(cString: PQfname(result, field))
            if columns[name] == nil { columns[name] = Int(field) }
        }
        let rows = (0..<PQntuples(result)).map { tuple in
            PostgresRow(columns: columns, values: (0..<fieldCount).map { field in
                PQgetisnull(result, tuple, field) == 1 ? nil : String(cString: PQgetvalue(result, tuple, field))
            })
        }
        return PostgresRows(rows: rows, affectedRows: Int(String(cString: PQcmdTuples(result))) ?? 0)
    }

    private static func errorMessage(_ handle: OpaquePointer) -> String {
        String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The logger a connection's notice processor writes to, passed to C as its context.
private final class NoticeLog {
    let logger: Logger
    init(logger: Logger) { self.logger = logger }
}

/// Calls `body` with C copies of `strings` (nil stays NULL), freed afterwards.
func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { $0.flatMap { strdup($0) } }
    defer { copies.forEach { free($0) } }
    return body(copies.map { $0.map { UnsafePointer($0) } })
}
