import Foundation

/// One row of a result, its values in PostgreSQL's text format.
public struct PostgresRow: Sendable {
    /// Column name → index, shared by every row of a result.
    let columns: [String: Int]
    let values: [String?]

    /// The column's text value; nil when it is NULL or there is no such column.
    public subscript(_ column: String) -> String? {
        guard let index = columns[column] else { return nil }
        return values[index]
    }

    /// The column's text value; throws when it is NULL or missing.
    public func string(_ column: String) throws -> String {
        guard let index = columns[column] else {
            throw PostgresError.protocolViolation("no column \"\(column)\" in the result")
        }
        guard let value = values[index] else {
            throw PostgresError.protocolViolation("column \"\(column)\" is NULL")
        }
        return value
    }

    public func int(_ column: String) throws -> Int {
        try decode(column, as: "an integer") { Int($0) }
    }

    public func bool(_ column: String) throws -> Bool {
        try decode(column, as: "a boolean") { PostgresText.bool($0) }
    }

    /// A `bigint[]` column of one dimension without NULLs.
    public func bigints(_ column: String) throws -> [Int64] {
        try decode(column, as: "a bigint array") { PostgresText.bigints(fromArray: $0) }
    }

    /// A `bytea` column (hex output format).
    public func bytes(_ column: String) throws -> [UInt8] {
        try decode(column, as: "bytea in hex format") { PostgresText.bytes(fromByteaHex: $0) }
    }

    /// A `timestamptz` column (ISO DateStyle).
    public func date(_ column: String) throws -> Date {
        try decode(column, as: "a timestamp") { PostgresText.date(fromTimestamp: $0) }
    }

    /// A text column holding one of a string enumeration's raw values (a state, say).
    public func value<T: RawRepresentable>(_ column: String) throws -> T where T.RawValue == String {
        try decode(column, as: "a \(T.self)") { T(rawValue: $0) }
    }

    private func decode<T>(_ column: String, as kind: String, _ parse: (String) -> T?) throws -> T {
        let text = try string(column)
        guard let value = parse(text) else {
            throw PostgresError.protocolViolation("column \"\(column)\" is not \(kind): \(text.prefix(64))")
        }
        return value
    }
}

/// The rows a statement returned, and how many rows it affected (`INSERT`/`UPDATE`/`DELETE`).
public struct PostgresRows: Sendable, RandomAccessCollection {
    public let rows: [PostgresRow]
    /// The count in the command tag (`UPDATE 3` → 3); 0 for statements that have none.
    public let affectedRows: Int

    init(rows: [PostgresRow], affectedRows: Int) {
        self.rows = rows
        self.affectedRows = affectedRows
    }

    public var startIndex: Int { rows.startIndex }
    public var endIndex: Int { rows.endIndex }
    public subscript(position: Int) -> PostgresRow { rows[position] }
}
