import Foundation

/// A value that can be sent as a query parameter, in PostgreSQL's text format.
///
/// Parameters always travel separately from the SQL text (`$1`, `$2`, …), so no value is
/// ever spliced into a statement.
public protocol PostgresBindable: Sendable {
    /// The parameter's text form; `nil` sends SQL NULL.
    var postgresText: String? { get }
}

extension String: PostgresBindable {
    public var postgresText: String? { self }
}

extension Int: PostgresBindable {
    public var postgresText: String? { String(self) }
}

extension Int64: PostgresBindable {
    public var postgresText: String? { String(self) }
}

extension Bool: PostgresBindable {
    public var postgresText: String? { self ? "true" : "false" }
}

extension Double: PostgresBindable {
    /// Swift spells infinities `inf`; PostgreSQL's own spellings are unambiguous on every version.
    public var postgresText: String? {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return String(self)
    }
}

/// `bytea` in hex input format (`\x0aff…`).
extension Array: PostgresBindable where Element == UInt8 {
    public var postgresText: String? { PostgresText.byteaHex(self) }
}

/// `timestamptz` as ISO 8601 in UTC with microseconds, PostgreSQL's own precision.
extension Date: PostgresBindable {
    public var postgresText: String? { PostgresText.timestamp(self) }
}

extension Optional: PostgresBindable where Wrapped: PostgresBindable {
    public var postgresText: String? { self?.postgresText }
}
