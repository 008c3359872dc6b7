/// A calendar date in the proleptic Gregorian calendar, with no time zone attached.
///
/// Schedules are wall-clock rules ("09:00 every Monday in Europe/Berlin"), so their
/// arithmetic is done on dates, and only the final date and time is turned into an
/// instant (see `TimeZone.instant(of:)`). Day numbers use Howard Hinnant's civil-date
/// algorithms, so nothing here depends on Calendar or the process's time zone.
public struct LocalDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Nil when the date does not exist (month 13, 31 April, 29 February in 2025).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= LocalDate.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `dayNumber` days after 1970-01-01.
    public init(dayNumber: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        self.year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        self.month = month
        self.day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    }

    /// Days since 1970-01-01 (negative before it).
    public var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public var weekday: Weekday {
        // 1970-01-01 was a Thursday.
        let offset = ((dayNumber % 7) + 7 + 3) % 7
        return Weekday(rawValue: offset + 1)!
    }

    /// Months since January of year 0, for counting "every N months".
    public var monthNumber: Int { year * 12 + (month - 1) }

    public func addingDays(_ days: Int) -> LocalDate { LocalDate(dayNumber: dayNumber + days) }

    /// The same day `years` later; 29 February becomes 28 February in a common year.
    public func addingYears(_ years: Int) -> LocalDate {
        let target = year + years
        return LocalDate(year: target, month: month, day: min(day, LocalDate.daysIn(month: month, year: target)))!
    }

    public static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// `YYYY-MM-DD`.
    public var description: String { "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))" }
}

/// A time of day on a wall clock, to the second.
public struct LocalTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int
    public let second: Int

    public init?(hour: Int, minute: Int, second: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Parses `HH:MM:SS`, or `HH:MM` meaning second 0.
    public init?(jpush text: String) {
        guard let fields = parseFields(Substring(text), separator: ":", widths: [2, 2, 2])
                ?? parseFields(Substring(text), separator: ":", widths: [2, 2]).map({ $0 + [0] })
        else { return nil }
        self.init(hour: fields[0], minute: fields[1], second: fields[2])
    }

    public var secondsIntoDay: Int { hour * 3600 + minute * 60 + second }

    public static func < (lhs: LocalTime, rhs: LocalTime) -> Bool { lhs.secondsIntoDay < rhs.secondsIntoDay }

    /// `HH:MM:SS`.
    public var description: String { "\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))" }
}

/// A date and a wall-clock time, as JPush writes them: `YYYY-MM-DD HH:MM:SS`.
public struct LocalDateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let date: LocalDate
    public let time: LocalTime

    public init(date: LocalDate, time: LocalTime) {
        self.date = date
        self.time = time
    }

    /// Parses exactly `YYYY-MM-DD HH:MM:SS`; nil for any other shape or a date that does not exist.
    public init?(jpush text: String) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let date = parseFields(parts[0], separator: "-", widths: [4, 2, 2]),
              let time = parseFields(parts[1], separator: ":", widths: [2, 2, 2]),
              let localDate = LocalDate(year: date[0], month: date[1], day: date[2]),
              let localTime = LocalTime(hour: time[0], minute: time[1], second: time[2])
        else { return nil }
        self.init(date: localDate, time: localTime)
    }

    /// The wall-clock reading `wallSeconds` after 1970-01-01 00:00:00.
    public init(wallSeconds: Int) {
        let days = wallSeconds >= 0 ? wallSeconds / 86_400 : (wallSeconds - 86_399) / 86_400
        let rest = wallSeconds - days * 86_400
        self.init(date: LocalDate(dayNumber: days),
                  time: LocalTime(hour: rest / 3600, minute: rest % 3600 / 60, second: rest % 60)!)
    }

    /// Seconds since 1970-01-01 00:00:00 on this wall clock, as if it were UTC.
    public var wallSeconds: Int { date.dayNumber * 86_400 + time.secondsIntoDay }

    public static func < (lhs: LocalDateTime, rhs: LocalDateTime) -> Bool {
        lhs.wallSeconds < rhs.wallSeconds
    }

    /// `YYYY-MM-DD HH:MM:SS`.
    public var description: String { "\(date) \(time)" }
}

/// A day of the week, numbered as ISO 8601 does (Monday 1 … Sunday 7).
public enum Weekday: Int, Sendable, CaseIterable, Comparable {
    case monday = 1, tuesday, wednesday, thursday, friday, saturday, sunday

    /// JPush's name: `MON` … `SUN`.
    public var jpushName: String {
        ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"][rawValue - 1]
    }

    /// Accepts JPush's names in any letter case.
    public init?(jpushName: String) {
        let upper = jpushName.uppercased()
        guard let day = Weekday.allCases.first(where: { $0.jpushName == upper }) else { return nil }
        self = day
    }

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Splits `text` at `separator` into fields of exactly the given digit widths.
private func parseFields(_ text: Substring, separator: Character, widths: [Int]) -> [Int]? {
    let fields = text.split(separator: separator, omittingEmptySubsequences: false)
    guard fields.count == widths.count else { return nil }
    var numbers: [Int] = []
    for (field, width) in zip(fields, widths) {
        guard field.utf8.count == width, field.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let number = Int(field) else { return nil }
        numbers.append(number)
    }
    return numbers
}

private func pad(_ number: Int, _ width: Int) -> String {
    let digits = String(number)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
