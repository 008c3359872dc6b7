import Foundation

/// Instants in admin report queries: Unix seconds or ISO 8601 (`2026-11-30T09:00:00Z`,
/// with an offset or fractional seconds), always shown back in UTC.
enum ReportTime {
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
