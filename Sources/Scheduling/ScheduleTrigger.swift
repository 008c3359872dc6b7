import Foundation
import RelayCore

/// When a schedule fires: JPush's `trigger` object, read as wall-clock times in `timeZone`.
///
/// Every time in a trigger is a wall-clock reading in its zone, so a 09:00 daily reminder
/// stays at 09:00 local time across daylight-saving changes. Readings that a change skips
/// or repeats resolve as `TimeZone.instant(of:)` documents (skipped: the first instant
/// after the gap; repeated: the first occurrence).
///
/// All evaluation is pure: the caller passes "now" in, nothing reads the clock.
public struct ScheduleTrigger: Sendable, Equatable {
    public enum Rule: Sendable, Equatable {
        /// Fires once, at this reading.
        case single(LocalDateTime)
        case periodical(PeriodicalRule)
    }

    public let rule: Rule
    /// The zone of every time in `rule`: the `time_zone` extension, else the relay's zone.
    public let timeZone: TimeZone

    public init(rule: Rule, timeZone: TimeZone) {
        self.rule = rule
        self.timeZone = timeZone
    }

    /// Fire times strictly after `after`, oldest first, at most `limit` of them.
    public func occurrences(after: Date, limit: Int) -> [Date] {
        guard limit > 0 else { return [] }
        switch rule {
        case .single(let time):
            let instant = timeZone.instant(of: time)
            return instant > after ? [instant] : []
        case .periodical(let periodical):
            return periodical.occurrences(in: timeZone, after: after, limit: limit)
        }
    }

    /// The first fire time strictly after `after`; nil once the trigger has run out.
    public func nextFireTime(after: Date) -> Date? {
        occurrences(after: after, limit: 1).first
    }

    /// The next `count` fire times after `now`, for `GET /v3/schedules/{id}`.
    public func nextFireTimes(after now: Date, count: Int = 5) -> [Date] {
        occurrences(after: now, limit: count)
    }
}

/// JPush's `periodical` trigger: at `time` on the days `cadence` picks, every `frequency`
/// days, weeks or months, from `start` to `end`.
///
/// - Bounds: an occurrence fires if `start <= occurrence <= end` (both inclusive,
///   compared as instants in the trigger's zone).
/// - Frequency anchor: with `frequency` N, the period containing `start` is period 0 and
///   the rule fires in periods 0, N, 2N, …:
///   - days: the calendar day of `start` is day 0;
///   - weeks: the ISO week (Monday to Sunday) containing `start` is week 0;
///   - months: the calendar month of `start` is month 0.
///   Occurrences in period 0 that fall before `start` are not fired; the count still
///   starts there.
/// - Month days that a month does not have (31 in April, 29–31 in February of a common
///   year) are skipped for that month, not moved to its last day: "on the 31st" fires
///   only in months with 31 days, and 29 February only in leap years.
public struct PeriodicalRule: Sendable, Equatable {
    /// Which days in a period fire: JPush's `time_unit` with its `point` list.
    public enum Cadence: Sendable, Equatable {
        /// `time_unit` "day": every day of the period (the period is one day).
        case daily
        /// `time_unit` "week" with `point` `MON`…`SUN`.
        case weekly(Set<Weekday>)
        /// `time_unit` "month" with `point` `01`…`31`.
        case monthly(Set<Int>)
    }

    public let start: LocalDateTime
    public let end: LocalDateTime
    public let time: LocalTime
    public let frequency: Int
    public let cadence: Cadence

    public static let frequencyRange = 1...100

    /// Checks JPush's static limits; the error names the offending field for an 8100.
    public init(start: LocalDateTime, end: LocalDateTime, time: LocalTime, frequency: Int, cadence: Cadence) throws(JPushError) {
        let field = "trigger.periodical."
        guard end > start else {
            throw .invalidSchedule("\(field)end must be later than \(field)start")
        }
        guard end <= LocalDateTime(date: start.date.addingYears(1), time: start.time) else {
            throw .invalidSchedule("\(field)end must be at most one year after \(field)start")
        }
        guard PeriodicalRule.frequencyRange.contains(frequency) else {
            throw .invalidSchedule("\(field)frequency must be an integer from 1 to 100, got \(frequency)")
        }
        switch cadence {
        case .daily:
            break
        case .weekly(let days):
            guard !days.isEmpty else { throw .invalidSchedule("\(field)point must list at least one of MON..SUN for time_unit week") }
        case .monthly(let days):
            guard !days.isEmpty else { throw .invalidSchedule("\(field)point must list at least one of 01..31 for time_unit month") }
            if let bad = days.sorted().first(where: { !(1...31).contains($0) }) {
                throw .invalidSchedule("\(field)point must hold days 01..31, got \(bad)")
            }
        }
        self.start = start
        self.end = end
        self.time = time
        self.frequency = frequency
        self.cadence = cadence
    }

    /// Whether the rule fires on `date`, ignoring the start and end instants.
    func fires(on date: LocalDate) -> Bool {
        switch cadence {
        case .daily:
            return (date.dayNumber - start.date.dayNumber) % frequency == 0
        case .weekly(let days):
            guard days.contains(date.weekday) else { return false }
            let weeks = (monday(of: date) - monday(of: start.date)) / 7
            return weeks % frequency == 0
        case .monthly(let days):
            guard days.contains(date.day) else { return false }
            return (date.monthNumber - start.date.monthNumber) % frequency == 0
        }
    }

    /// Walks the days from `after` (or `start`) to `end`: at most a year and a day, since
    /// `init` bounds the span.
    func occurrences(in zone: TimeZone, after: Date, limit: Int) -> [Date] {
        let first = zone.instant(of: start)
        let last = zone.instant(of: end)
        guard after < last else { return [] }
        // A day early: an instant's local date and its fire time's date may differ by one
        // around a change of offset.
        var date = max(start.date, zone.localDateTime(at: after).date.addingDays(-1))
        var found: [Date] = []
        while date <= end.date, found.count < limit {
            if fires(on: date) {
                let instant = zone.instant(of: LocalDateTime(date: date, time: time))
                if instant > after, instant >= first, instant <= last { found.append(instant) }
            }
            date = date.addingDays(1)
        }
        return found
    }

    /// Day number of the Monday starting `date`'s ISO week.
    private func monday(of date: LocalDate) -> Int {
        date.dayNumber - (date.weekday.rawValue - 1)
    }
}

extension JPushError {
    /// A schedule request JPush would refuse: HTTP 400, code 8100, naming the field.
    public static func invalidSchedule(_ message: String) -> JPushError {
        JPushError(status: 400, code: 8100, message: message)
    }
}
