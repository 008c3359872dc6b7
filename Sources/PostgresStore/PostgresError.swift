/// What can go wrong talking to PostgreSQL, sorted by what the caller should do about it.
public enum PostgresError: Error, Sendable, CustomStringConvertible {
    /// The database cannot be reached: connecting failed, the connection was lost, or no pool
    /// thread became free within the acquire timeout. The API answers 503 (code 1030).
    case unavailable(String)
    /// The server rejected a statement; `sqlState` says why (for example
    /// `.uniqueViolation`).
    case server(sqlState: SQLState, message: String)
    /// A result had an unexpected shape or a value could not be decoded.
    case protocolViolation(String)

    public var description: String {
        switch self {
        case .unavailable(let message): "PostgreSQL unavailable: \(message)"
        case .server(let sqlState, let message): "PostgreSQL error \(sqlState): \(message)"
        case .protocolViolation(let message): "PostgreSQL protocol violation: \(message)"
        }
    }

    /// The error for a failed statement, given its SQLSTATE and whether the connection survived.
    ///
    /// Connection exceptions (class 08) and shutdown notices (57P01–57P03) mean the database
    /// went away, not that the statement was wrong; an error with no SQLSTATE comes from libpq
    /// itself and means the connection broke when the connection is no longer usable.
    static func statementFailed(sqlState: String?, message: String, connectionUsable: Bool) -> PostgresError {
        guard let sqlState, !sqlState.isEmpty else {
            return connectionUsable ? .protocolViolation(message) : .unavailable(message)
        }
        let state = SQLState(rawValue: sqlState)
        if !connectionUsable || state.meansUnavailable {
            return .unavailable(message)
        }
        return .server(sqlState: state, message: message)
    }
}
