import Foundation
import RelayCore

/// A request's query string, read with range checks. Every query parameter from outside is
/// parsed here, and a bad one is a 400 (1003; the report routes make it 3002) that names
/// the parameter and what it may be, never a trap or a value PostgreSQL refuses.
struct QueryParameters: Sendable {
    let values: [String: String]

    init(_ values: [String: String]) {
        self.values = values
    }

    /// The value, nil when absent or empty.
    func string(_ name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A whole number in `range`; nil when absent.
    func integer<T: FixedWidthInteger & Sendable>(_ name: String, in range: ClosedRange<T>) throws(JPushError) -> T? {
        guard let raw = string(name) else { return nil }
        guard let number = T(raw), range.contains(number) else {
            throw .illegalValue("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(InputEcho.quoted(raw))")
        }
        return number
    }

    /// An instant in `ReportTime.window`, as Unix seconds or ISO 8601; nil when absent.
    func instant(_ name: String) throws(JPushError) -> Date? {
        guard let raw = string(name) else { return nil }
        guard let date = ReportTime.parse(raw), ReportTime.window.contains(date) else {
            throw .illegalValue("\(name) must be Unix seconds or ISO 8601 \(ReportTime.windowText), got \(InputEcho.quoted(raw))")
        }
        return date
    }

    /// `true` or `false`; nil when absent.
    func bool(_ name: String) throws(JPushError) -> Bool? {
        guard let raw = string(name) else { return nil }
        guard raw == "true" || raw == "false" else {
            throw .illegalValue("\(name) must be true or false, got \(InputEcho.quoted(raw))")
        }
        return raw == "true"
    }

    /// One of `T`'s raw values; nil when absent.
    func choice<T: RawRepresentable<String> & CaseIterable>(_ name: String, _ type: T.Type) throws(JPushError) -> T? {
        guard let raw = string(name) else { return nil }
        guard let value = T(rawValue: raw) else {
            let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw .illegalValue("\(name) must be one of \(allowed), got \(InputEcho.quoted(raw))")
        }
        return value
    }
}
