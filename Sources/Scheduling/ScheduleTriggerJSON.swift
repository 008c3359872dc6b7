import Foundation
import RelayCore

/// JPush's `trigger` object on the wire:
/// `{"single": {"time": "YYYY-MM-DD HH:MM:SS"}}` or
/// `{"periodical": {"start", "end", "time": "HH:MM:SS", "time_unit": "day|week|month",
/// "frequency": 1…100, "point": [...]}}`, each optionally with the `time_zone` extension
/// (an IANA name) beside `time`.
extension ScheduleTrigger {
    /// How far in the past a single time may be when submitted: a request built for "now"
    /// reaches us a moment later, and still fires (see `CatchUpDecision`).
    public static let pastTolerance: TimeInterval = 60

    /// Reads a trigger without looking at the clock: the shape, the formats and the limits
    /// that do not depend on "now" (end after start, span, frequency, points). Use this
    /// for triggers read back from storage; add `validateForSubmission(now:)` for requests.
    ///
    /// - Parameters:
    ///   - json: the `trigger` value.
    ///   - defaultTimeZone: the relay's configured zone, used when `time_zone` is absent.
    public init(json: JSONValue, defaultTimeZone: TimeZone) throws(JPushError) {
        let trigger = try scheduleField { () throws(JPushError) in try JSONObjectReader(json, path: "trigger.") }
        try scheduleField { () throws(JPushError) in try trigger.rejectUnknownKeys(allowed: ["single", "periodical"]) }
        switch (trigger.has("single"), trigger.has("periodical")) {
        case (true, false):
            let single = try scheduleField { () throws(JPushError) in
                try JSONObjectReader(trigger.fields["single"]!, path: "trigger.single.")
            }
            try scheduleField { () throws(JPushError) in try single.rejectUnknownKeys(allowed: ["time", "time_zone"]) }
            let time = try dateTime(single, "time")
            self.init(rule: .single(time), timeZone: try zone(single, default: defaultTimeZone))
        case (false, true):
            let periodical = try scheduleField { () throws(JPushError) in
                try JSONObjectReader(trigger.fields["periodical"]!, path: "trigger.periodical.")
            }
            self.init(rule: .periodical(try PeriodicalRule(periodical)), timeZone: try zone(periodical, default: defaultTimeZone))
        case (true, true):
            throw .invalidSchedule("trigger must hold either single or periodical, not both")
        case (false, false):
            throw .invalidSchedule("trigger must hold single or periodical")
        }
    }

    /// The checks against the clock for a create or update request: a single time at most
    /// `pastTolerance` ago and at most one year ahead; a periodical rule that ends in the
    /// future and still has a fire time left.
    public func validateForSubmission(now: Date) throws(JPushError) {
        switch rule {
        case .single(let time):
            let instant = timeZone.instant(of: time)
            guard instant >= now.addingTimeInterval(-ScheduleTrigger.pastTolerance) else {
                throw .invalidSchedule("trigger.single.time \(time) is in the past in \(timeZone.identifier)")
            }
            let local = timeZone.localDateTime(at: now)
            let limit = timeZone.instant(of: LocalDateTime(date: local.date.addingYears(1), time: local.time))
            guard instant <= limit else {
                throw .invalidSchedule("trigger.single.time must be at most one year ahead")
            }
        case .periodical(let periodical):
            guard timeZone.instant(of: periodical.end) > now else {
                throw .invalidSchedule("trigger.periodical.end \(periodical.end) is in the past in \(timeZone.identifier)")
            }
            guard nextFireTime(after: now.addingTimeInterval(-ScheduleTrigger.pastTolerance)) != nil else {
                throw .invalidSchedule("trigger.periodical never fires between now and trigger.periodical.end")
            }
        }
    }

    /// `init(json:defaultTimeZone:)` followed by `validateForSubmission(now:)`.
    public static func parse(_ json: JSONValue, defaultTimeZone: TimeZone, now: Date) throws(JPushError) -> ScheduleTrigger {
        let trigger = try ScheduleTrigger(json: json, defaultTimeZone: defaultTimeZone)
        try trigger.validateForSubmission(now: now)
        return trigger
    }

    /// The trigger in JPush's shape, with `time_zone` always written out, so a stored
    /// trigger keeps its meaning if the relay's default zone changes. `time_unit` is
    /// written lower case and `point` sorted.
    public var json: JSONValue {
        let zone = JSONValue.string(timeZone.identifier)
        switch rule {
        case .single(let time):
            return .object(["single": .object(["time": .string(time.description), "time_zone": zone])])
        case .periodical(let rule):
            var fields: [String: JSONValue] = [
                "start": .string(rule.start.description),
                "end": .string(rule.end.description),
                "time": .string(rule.time.description),
                "frequency": .int(Int64(rule.frequency)),
                "time_zone": zone,
            ]
            switch rule.cadence {
            case .daily:
                fields["time_unit"] = .string("day")
            case .weekly(let days):
                fields["time_unit"] = .string("week")
                fields["point"] = .array(days.sorted().map { .string($0.jpushName) })
            case .monthly(let days):
                fields["time_unit"] = .string("month")
                fields["point"] = .array(days.sorted().map { .string($0 < 10 ? "0\($0)" : "\($0)") })
            }
            return .object(["periodical": .object(fields)])
        }
    }
}

extension PeriodicalRule {
    /// Reads `trigger.periodical` (without `time_zone`, which the trigger reads).
    init(_ periodical: JSONObjectReader) throws(JPushError) {
        try scheduleField { () throws(JPushError) in
            try periodical.rejectUnknownKeys(allowed: ["start", "end", "time", "time_unit", "frequency", "point", "time_zone"])
        }
        let start = try dateTime(periodical, "start")
        let end = try dateTime(periodical, "end")
        let timeText = try scheduleField { () throws(JPushError) in try periodical.string("time") }
        guard let time = LocalTime(jpush: timeText) else {
            throw .invalidSchedule("trigger.periodical.time must be HH:MM:SS, got \(InputEcho.quoted(timeText))")
        }
        // JPush's SDKs may leave frequency out; every period is what that means.
        let frequency = try scheduleField { () throws(JPushError) in try periodical.optionalInt("frequency") } ?? 1
        let unit = try scheduleField { () throws(JPushError) in try periodical.string("time_unit") }
        let cadence: Cadence
        switch unit.lowercased() {
        case "day":
            // JPush ignores point for daily rules, and SDKs send whatever the caller passed.
            cadence = .daily
        case "week":
            cadence = .weekly(Set(try points(periodical, unit: "week") { Weekday(jpushName: $0) }))
        case "month":
            cadence = .monthly(Set(try points(periodical, unit: "month") { monthDay($0) }))
        default:
            throw .invalidSchedule("trigger.periodical.time_unit must be day, week or month, got \(InputEcho.quoted(unit))")
        }
        try self.init(start: start, end: end, time: time, frequency: Int(frequency), cadence: cadence)
    }
}

/// Reads `point` for a weekly or monthly rule: a non-empty array of strings, each of
/// which `parse` accepts.
private func points<T>(_ periodical: JSONObjectReader, unit: String, _ parse: (String) -> T?) throws(JPushError) -> [T] {
    let expected = unit == "week" ? "MON..SUN" : "\"01\"..\"31\""
    guard case .array(let items)? = periodical.fields["point"], !items.isEmpty else {
        throw .invalidSchedule("trigger.periodical.point must be a non-empty array of \(expected) for time_unit \(unit)")
    }
    var values: [T] = []
    for (index, item) in items.enumerated() {
        guard case .string(let text) = item, let value = parse(text) else {
            let got = if case .string(let text) = item { InputEcho.quoted(text) } else { item.typeName }
            throw .invalidSchedule("trigger.periodical.point[\(index)] must be \(expected), got \(got)")
        }
        values.append(value)
    }
    return values
}

/// `"01"`…`"31"`; a single digit is accepted too.
private func monthDay(_ text: String) -> Int? {
    guard (1...2).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
          let day = Int(text), (1...31).contains(day) else { return nil }
    return day
}

private func dateTime(_ object: JSONObjectReader, _ key: String) throws(JPushError) -> LocalDateTime {
    let text = try scheduleField { () throws(JPushError) in try object.string(key) }
    guard let value = LocalDateTime(jpush: text) else {
        throw .invalidSchedule("\(object.path)\(key) must be a date and time \"YYYY-MM-DD HH:MM:SS\", got \(InputEcho.quoted(text))")
    }
    return value
}

private func zone(_ object: JSONObjectReader, default defaultZone: TimeZone) throws(JPushError) -> TimeZone {
    guard let name = try scheduleField({ () throws(JPushError) in try object.optionalString("time_zone") }) else {
        return defaultZone
    }
    guard let zone = TimeZone(identifier: name) else {
        throw .invalidSchedule("\(object.path)time_zone must be an IANA time zone name such as \"Europe/Berlin\", got \(InputEcho.quoted(name))")
    }
    return zone
}

/// Runs a `JSONObjectReader` accessor, turning its push-family error (1002, 1003, 1009)
/// into the schedule family's 8100 with the same message.
func scheduleField<T>(_ read: () throws(JPushError) -> T) throws(JPushError) -> T {
    do {
        return try read()
    } catch {
        throw .invalidSchedule(error.message)
    }
}
