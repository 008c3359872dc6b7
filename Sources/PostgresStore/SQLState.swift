/// A PostgreSQL SQLSTATE: the five characters naming what went wrong (appendix A of the
/// PostgreSQL manual). The states the relay acts on are named here; any other passes through.
public struct SQLState: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public var description: String { rawValue }

    public static let uniqueViolation: SQLState = "23505"
    public static let serializationFailure: SQLState = "40001"
    public static let deadlockDetected: SQLState = "40P01"
    public static let duplicateDatabase: SQLState = "42P04"
    public static let adminShutdown: SQLState = "57P01"
    public static let crashShutdown: SQLState = "57P02"
    public static let cannotConnectNow: SQLState = "57P03"

    /// The database went away rather than the statement being wrong: a connection exception
    /// (class 08) or the server shutting down or not yet accepting (57P01–57P03).
    public var meansUnavailable: Bool {
        rawValue.hasPrefix("08") || [.adminShutdown, .crashShutdown, .cannotConnectNow].contains(self)
    }

    /// The transaction lost a race with another (a deadlock or a serialisation failure) and
    /// may be run again whole.
    public var isTransactionConflict: Bool {
        self == .deadlockDetected || self == .serializationFailure
    }
}
