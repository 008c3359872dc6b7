import Foundation
import RelayCore
import Testing
@testable import Scheduling

@Suite struct TriggerParsingTests {
    private let now = utc("2026-03-01 12:00:00")

    private func parse(_ text: String, defaultZone: String = "UTC") throws -> ScheduleTrigger {
        try ScheduleTrigger.parse(json(text), defaultTimeZone: zone(defaultZone), now: now)
    }

    /// The 8100 error `text` gets, or nil if it parses.
    private func error(_ text: String) throws -> JPushError? {
        let value = try json(text)
        do {
            _ = try ScheduleTrigger.parse(value, defaultTimeZone: zone("UTC"), now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test func singleReadsTimeAndZone() throws {
        let single = try parse(#"{"single": {"time": "2026-05-01 09:00:00", "time_zone": "America/New_York"}}"#)
        #expect(single.rule == .single(LocalDateTime(jpush: "2026-05-01 09:00:00")!))
        #expect(single.timeZone == zone("America/New_York"))
        #expect(try parse(#"{"single": {"time": "2026-05-01 09:00:00"}}"#, defaultZone: "Asia/Tokyo").timeZone == zone("Asia/Tokyo"))
    }

    @Test func periodicalReadsEveryField() throws {
        let weekly = try parse(#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-09-01 00:00:00", "time": "08:15", "time_unit": "WEEK", "frequency": 2, "point": ["mon", "FRI", "MON"], "time_zone": "Europe/Berlin"}}"#)
        guard case .periodical(let rule) = weekly.rule else { Issue.record("not periodical"); return }
        #expect(rule.start == LocalDateTime(jpush: "2026-03-01 00:00:00"))
        #expect(rule.end == LocalDateTime(jpush: "2026-09-01 00:00:00"))
        #expect(rule.time == LocalTime(hour: 8, minute: 15))
        #expect(rule.frequency == 2)
        #expect(rule.cadence == .weekly([.monday, .friday]))
        #expect(weekly.timeZone == zone("Europe/Berlin"))
    }

    @Test func frequencyDefaultsToOne() throws {
        let daily = try parse(#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "day"}}"#)
        guard case .periodical(let rule) = daily.rule else { Issue.record("not periodical"); return }
        #expect(rule.frequency == 1 && rule.cadence == .daily)
    }

    @Test(arguments: [
        #"{"single": {"time": "2026-05-01 09:00:00"}}"#,
        #"{"single": {"time": "2026-05-01 09:00:00", "time_zone": "Asia/Kolkata"}}"#,
        #"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "Day", "frequency": 3, "point": ["x"]}}"#,
        #"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2027-03-01 00:00:00", "time": "08:00:00", "time_unit": "week", "frequency": 1, "point": ["SUN", "WED"]}}"#,
        #"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-12-01 00:00:00", "time": "23:59:59", "time_unit": "MONTH", "frequency": 100, "point": ["31", "1", "09"], "time_zone": "Europe/Berlin"}}"#,
    ])
    func renderingParsesBackToTheSameTrigger(text: String) throws {
        let original = try parse(text)
        let rendered = original.json
        #expect(try ScheduleTrigger(json: rendered, defaultTimeZone: zone("Pacific/Auckland")) == original)
        // The zone is always written out, so a changed relay default does not move it.
        if case .object(let outer) = rendered, case .object(let inner)? = outer.values.first {
            #expect(inner["time_zone"] == .string(original.timeZone.identifier))
        } else {
            Issue.record("rendered trigger is not {kind: {...}}")
        }
    }

    @Test func renderingUsesJPushSpelling() throws {
        let monthly = try parse(#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-12-01 00:00:00", "time": "07:00", "time_unit": "MONTH", "frequency": 1, "point": ["31", "1"], "time_zone": "UTC"}}"#)
        guard case .object(let outer) = monthly.json, case .object(let fields)? = outer["periodical"] else {
            Issue.record("not a periodical object"); return
        }
        #expect(fields["time_unit"] == .string("month"))
        #expect(fields["point"] == .array([.string("01"), .string("31")]))
        #expect(fields["time"] == .string("07:00:00"))
        #expect(fields["frequency"] == .int(1))
    }

    @Test(arguments: [
        (#""tomorrow""#, "trigger must be a JSON object, got a string"),
        (#"{}"#, "trigger must hold single or periodical"),
        (#"{"single": {"time": "2026-05-01 09:00:00"}, "periodical": {}}"#, "trigger must hold either single or periodical, not both"),
        (#"{"single": {"time": "2026-05-01 09:00:00"}, "when": 1}"#, #"unknown field "trigger.when""#),
        (#"{"single": "2026-05-01 09:00:00"}"#, "trigger.single must be a JSON object, got a string"),
        (#"{"single": {}}"#, "trigger.single.time is required"),
        (#"{"single": {"time": 1714554000}}"#, "trigger.single.time must be a string, got a number"),
        (#"{"single": {"time": "2026-05-01T09:00:00"}}"#, #"trigger.single.time must be a date and time "YYYY-MM-DD HH:MM:SS", got "2026-05-01T09:00:00""#),
        (#"{"single": {"time": "2026-02-29 09:00:00"}}"#, "trigger.single.time must be a date and time"),
        (#"{"single": {"time": "2026-05-01 09:00:00", "zone": "UTC"}}"#, #"unknown field "trigger.single.zone""#),
        (#"{"single": {"time": "2026-05-01 09:00:00", "time_zone": "Mars/Olympus"}}"#, #"trigger.single.time_zone must be an IANA time zone name such as "Europe/Berlin", got "Mars/Olympus""#),
        (#"{"single": {"time": "2026-05-01 09:00:00", "time_zone": 8}}"#, "trigger.single.time_zone must be a string, got a number"),
        (#"{"single": {"time": "2026-03-01 11:58:59"}}"#, "trigger.single.time 2026-03-01 11:58:59 is in the past in GMT"),
        (#"{"single": {"time": "2027-03-01 12:00:01"}}"#, "trigger.single.time must be at most one year ahead"),
        (#"{"single": {"time": "2026-03-01 19:00:00", "time_zone": "Asia/Tokyo"}}"#, "trigger.single.time 2026-03-01 19:00:00 is in the past in Asia/Tokyo"),
        (#"{"periodical": [1]}"#, "trigger.periodical must be a JSON object, got an array"),
        (#"{"periodical": {"end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "day"}}"#, "trigger.periodical.start is required"),
        (#"{"periodical": {"start": "2026-03-01", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "day"}}"#, #"trigger.periodical.start must be a date and time "YYYY-MM-DD HH:MM:SS", got "2026-03-01""#),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "time": "08:00:00", "time_unit": "day"}}"#, "trigger.periodical.end is required"),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-03-01 00:00:00", "time": "08:00:00", "time_unit": "day"}}"#, "trigger.periodical.end must be later than trigger.periodical.start"),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2027-03-01 00:00:01", "time": "08:00:00", "time_unit": "day"}}"#, "trigger.periodical.end must be at most one year after trigger.periodical.start"),
        (#"{"periodical": {"start": "2026-01-01 00:00:00", "end": "2026-02-01 00:00:00", "time": "08:00:00", "time_unit": "day"}}"#, "trigger.periodical.end 2026-02-01 00:00:00 is in the past in GMT"),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time_unit": "day"}}"#, "trigger.periodical.time is required"),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "24:00:00", "time_unit": "day"}}"#, #"trigger.periodical.time must be HH:MM:SS, got "24:00:00""#),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00"}}"#, "trigger.periodical.time_unit is required"),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "hour"}}"#, #"trigger.periodical.time_unit must be day, week or month, got "hour""#),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "day", "frequency": 0}}"#, "trigger.periodical.frequency must be an integer from 1 to 100, got 0"),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "day", "frequency": 101}}"#, "trigger.periodical.frequency must be an integer from 1 to 100, got 101"),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "day", "frequency": "2"}}"#, "trigger.periodical.frequency must be an integer, got a string"),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "week"}}"#, "trigger.periodical.point must be a non-empty array of MON..SUN for time_unit week"),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "week", "point": ["MON", "TUE", "XYZ"]}}"#, #"trigger.periodical.point[2] must be MON..SUN, got "XYZ""#),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "week", "point": [1]}}"#, "trigger.periodical.point[0] must be MON..SUN, got a number"),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "month", "point": []}}"#, #"trigger.periodical.point must be a non-empty array of "01".."31" for time_unit month"#),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "month", "point": ["01", "32"]}}"#, #"trigger.periodical.point[1] must be "01".."31", got "32""#),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "month", "point": ["MON"]}}"#, #"trigger.periodical.point[0] must be "01".."31", got "MON""#),
        (#"{"periodical": {"start": "2026-04-01 00:00:00", "end": "2026-04-30 23:00:00", "time": "08:00:00", "time_unit": "month", "point": ["31"]}}"#, "trigger.periodical never fires between now and trigger.periodical.end"),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "day", "every": 2}}"#, #"unknown field "trigger.periodical.every""#),
        (#"{"periodical": {"start": "2026-03-01 00:00:00", "end": "2026-04-01 00:00:00", "time": "08:00:00", "time_unit": "day", "time_zone": "Beijing"}}"#, #"trigger.periodical.time_zone must be an IANA time zone name"#),
    ])
    func badInputGets8100NamingTheField(text: String, message: String) throws {
        let failure = try error(text)
        #expect(failure?.status == 400)
        #expect(failure?.code == 8100)
        #expect(failure?.message.hasPrefix(message) == true, "got \(failure?.message ?? "no error")")
    }

    @Test func aSingleTimeWithinTheToleranceOrUpToAYearAheadIsAccepted() throws {
        #expect(try error(#"{"single": {"time": "2026-03-01 11:59:00"}}"#) == nil)
        #expect(try error(#"{"single": {"time": "2027-03-01 12:00:00"}}"#) == nil)
        // The same wall time is in the future in New York.
        #expect(try error(#"{"single": {"time": "2026-03-01 11:00:00", "time_zone": "America/New_York"}}"#) == nil)
    }

    @Test func storedTriggersLoadWithoutClockChecks() throws {
        // Long past, which a create would refuse, but a stored schedule must still load.
        let stored = try trigger(#"{"single": {"time": "2020-01-01 00:00:00"}}"#)
        #expect(throws: JPushError.invalidSchedule("trigger.single.time 2020-01-01 00:00:00 is in the past in GMT")) {
            try stored.validateForSubmission(now: now)
        }
    }

    @Test func aSpanOfExactlyOneYearIsAllowedFromLeapDay() throws {
        // One year from 29 February 2028 is 28 February 2029.
        let rule = #"{"periodical": {"start": "2028-02-29 00:00:00", "end": "2029-02-28 00:00:00", "time": "08:00:00", "time_unit": "day"}}"#
        #expect(throws: Never.self) { try trigger(rule) }
        let over = #"{"periodical": {"start": "2028-02-29 00:00:00", "end": "2029-02-28 00:00:01", "time": "08:00:00", "time_unit": "day"}}"#
        #expect(throws: JPushError.self) { try trigger(over) }
    }
}
