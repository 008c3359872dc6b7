import Foundation
import PostgresStore

/// PostgreSQL array literals for parameters (`$1::bigint[]`, `$2::text[]`), so a whole batch
/// travels as a few parameters of one statement instead of one statement per row.
enum SQLArray {
    static func bigint(_ values: [Int64]) -> String {
        "{" + values.map(String.init).joined(separator: ",") + "}"
    }

    static func int(_ values: [Int?]) -> String {
        "{" + values.map { $0.map(String.init) ?? "NULL" }.joined(separator: ",") + "}"
    }

    /// Text elements quoted and escaped; nil is NULL.
    static func text(_ values: [String?]) -> String {
        "{" + values.map { value in
            guard let value else { return "NULL" }
            var quoted = "\""
            for character in value.unicodeScalars {
                if character == "\"" || character == "\\" { quoted.append("\\") }
                quoted.unicodeScalars.append(character)
            }
            return quoted + "\""
        }.joined(separator: ",") + "}"
    }

    /// Timestamps in the form `timestamptz[]` reads; nil is NULL.
    static func timestamps(_ values: [Date?]) -> String {
        text(values.map { $0?.postgresText })
    }
}
