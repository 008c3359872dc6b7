import Foundation

/// PostgreSQL array literals for parameters (`$1::bigint[]`, `$2::text[]`), bound as one
/// text value and cast in SQL, so a whole batch travels as a few parameters of one statement
/// instead of one statement per row.
public enum SQLArray {
    public static func bigint(_ values: [Int64]) -> String {
        "{" + values.map(String.init).joined(separator: ",") + "}"
    }

    public static func bool(_ values: [Bool]) -> String {
        "{" + values.map { $0 ? "t" : "f" }.joined(separator: ",") + "}"
    }

    public static func int(_ values: [Int?]) -> String {
        "{" + values.map { $0.map(String.init) ?? "NULL" }.joined(separator: ",") + "}"
    }

    /// Text elements quoted and escaped; nil is NULL. Built byte by byte into one buffer:
    /// an outcome write passes a few of these per 500 devices.
    public static func text(_ values: [String?]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + values.count * 8)
        bytes.append(UInt8(ascii: "{"))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            guard let value else {
                bytes.append(contentsOf: "NULL".utf8)
                continue
            }
            bytes.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Timestamps in the form `timestamptz[]` reads; nil is NULL.
    public static func timestamps(_ values: [Date?]) -> String {
        text(values.map { $0?.postgresText })
    }
}
