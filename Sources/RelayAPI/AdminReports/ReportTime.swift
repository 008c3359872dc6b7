import Foundation
import RelayCore

/// Instants in report queries: Unix seconds or ISO 8601 (`2026-11-30T09:00:00Z`, with an
/// offset or fractional seconds), always shown back in UTC, and only inside `window`.
enum ReportTime {
    /// The instants a request may name: from 1970 to the end of 9999. Beyond it lie numbers
    /// that overflow on conversion and dates PostgreSQL refuses.
    static let window = Date(timeIntervalSince1970: 0)..<Date(timeIntervalSince1970: 253_402_300_800)
    static let windowText = "from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z"

    /// The instant `text` names, or nil when it is neither form.
    static func parse(_ text: String) -> Date? {
        if let seconds = Int64(text) { return Date(timeIntervalSince1970: TimeInterval(seconds)) }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// `2026-11-30T09:00:00Z`.
    static func format(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
