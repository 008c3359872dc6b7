import CSystem
import Foundation

extension PostgresConnection {
    /// Runs `COPY … FROM STDIN` and streams what `produce` writes into it.
    ///
    /// - Parameters:
    ///   - sql: a `COPY table (columns) FROM STDIN …` statement.
    ///   - produce: called once with a `send` function; each call hands libpq one buffer of
    ///     COPY data (whole rows or not: the server reassembles). If `produce` throws, the
    ///     COPY is aborted and nothing it sent is kept.
    /// - Returns: the number of rows copied.
    /// - Throws: `PostgresError` when the server refuses the statement or the data.
    @discardableResult
    public func copyIn(_ sql: String, _ produce: (_ send: ([UInt8]) throws -> Void) throws -> Void) throws -> Int {
        guard let start = PQexec(handle, sql) else {
            _ = try rows(from: nil)
            return 0
        }
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            // Not a COPY FROM STDIN (or refused): report it the usual way.
            _ = try rows(from: start)
            throw PostgresError.protocolViolation("statement did not start COPY FROM STDIN")
        }
        PQclear(start)
        let send: ([UInt8]) throws -> Void = { [handle] buffer in
            guard !buffer.isEmpty else { return }
            let sent = buffer.withUnsafeBufferPointer { pointer in
                pointer.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
            }
            guard sent == 1 else { throw PostgresError.unavailable("COPY data could not be sent") }
        }
        var failure: (any Error)?
        do {
            try produce(send)
        } catch {
            failure = error
        }
        let ended = PQputCopyEnd(handle, failure == nil ? nil : "aborted by the client")
        // Read every result, so the connection is ready for the next statement.
        var copied = 0
        var serverError: (any Error)?
        while let result = PQgetResult(handle) {
            do {
                let outcome = try rows(from: result)
                copied = outcome.affectedRows
            } catch {
                if serverError == nil { serverError = error }
            }
        }
        if let failure { throw failure }
        if let serverError { throw serverError }
        guard ended == 1 else { throw PostgresError.unavailable("COPY could not be finished") }
        return copied
    }
}
