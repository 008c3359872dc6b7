import Foundation
import RelayCore

/// `GET /v3/users?time_unit=HOUR|DAY|MONTH&start=…&duration=n`, JPush's user statistics:
/// the buckets asked for, in UTC (JPush counts in Beijing time; PushRelay has no zone of its
/// own). `start` is `YYYY-MM-DD HH` by hour, `YYYY-MM-DD` by day, `YYYY-MM` by month, and
/// each bucket's `time` is written the same way.
struct UsersQuery: Sendable, Equatable {
    enum Unit: String, Sendable {
        case hour = "HOUR", day = "DAY", month = "MONTH"

        /// JPush's limits: 24 hours, 60 days, 2 months.
        var maxDuration: Int {
            switch self {
            case .hour: 24
            case .day: 60
            case .month: 2
            }
        }

        var format: String {
            switch self {
            case .hour: "yyyy-MM-dd HH"
            case .day: "yyyy-MM-dd"
            case .month: "yyyy-MM"
            }
        }

        var component: Calendar.Component {
            switch self {
            case .hour: .hour
            case .day: .day
            case .month: .month
            }
        }
    }

    var unit: Unit
    /// `start` as given (JPush echoes it).
    var startText: String
    var duration: Int
    /// Bucket boundaries: `duration + 1` instants, the last one the end of the last bucket.
    var boundaries: [Date]

    /// - Throws: `ReportFamily.invalid` (code 3002) naming the bad parameter.
    init(query: [String: String]) throws(JPushError) {
        guard let rawUnit = query["time_unit"], let unit = Unit(rawValue: rawUnit.uppercased()) else {
            throw ReportFamily.invalid("time_unit must be HOUR, DAY or MONTH")
        }
        let query = QueryParameters(query)
        guard let duration = try query.integer("duration", in: 1...unit.maxDuration) else {
            throw ReportFamily.invalid("duration must be a whole number from 1 to \(unit.maxDuration) for time_unit \(unit.rawValue)")
        }
        let formatter = Self.formatter(unit)
        guard let rawStart = query.string("start"), let start = formatter.date(from: rawStart), formatter.string(from: start) == rawStart else {
            throw ReportFamily.invalid("start must be written \(unit.format.uppercased()) for time_unit \(unit.rawValue)")
        }
        let boundaries = (0...duration).compactMap { Self.calendar.date(byAdding: unit.component, value: $0, to: start) }
        // Every bucket inside the window: PostgreSQL refuses the years before 1 (22008).
        guard boundaries.count == duration + 1, let end = boundaries.last,
              ReportTime.window.contains(start), end <= ReportTime.window.upperBound else {
            throw ReportFamily.invalid("start and its \(duration) \(unit.rawValue.lowercased())s must lie \(ReportTime.windowText)")
        }
        self.unit = unit
        self.startText = rawStart
        self.duration = duration
        self.boundaries = boundaries
    }

    /// Each bucket's `time`, as JPush writes it.
    var labels: [String] {
        let formatter = Self.formatter(unit)
        return boundaries.dropLast().map { formatter.string(from: $0) }
    }

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    private static func formatter(_ unit: Unit) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.calendar = calendar
        formatter.dateFormat = unit.format
        return formatter
    }
}
