import Foundation
import Testing
@testable import Scheduling

@Suite struct OccurrenceTests {
    private let longAgo = utc("2000-01-01 00:00:00")

    private func fires(_ text: String, after: Date? = nil, limit: Int = 50) throws -> [Date] {
        try trigger(text).occurrences(after: after ?? longAgo, limit: limit)
    }

    // MARK: single

    @Test func singleFiresOnce() throws {
        let single = try trigger(#"{"single": {"time": "2026-05-01 09:00:00", "time_zone": "Europe/Berlin"}}"#)
        #expect(single.occurrences(after: utc("2026-04-01 00:00:00"), limit: 5) == [utc("2026-05-01 07:00:00")])
        #expect(single.nextFireTime(after: utc("2026-05-01 06:59:59")) == utc("2026-05-01 07:00:00"))
        #expect(single.nextFireTime(after: utc("2026-05-01 07:00:00")) == nil)
        #expect(single.nextFireTimes(after: utc("2026-04-01 00:00:00")) == [utc("2026-05-01 07:00:00")])
        #expect(single.occurrences(after: utc("2026-04-01 00:00:00"), limit: 0) == [])
    }

    @Test func singleUsesTheDefaultZoneWhenNoneIsNamed() throws {
        let single = try trigger(#"{"single": {"time": "2026-05-01 09:00:00"}}"#, defaultZone: "Asia/Shanghai")
        #expect(single.timeZone == zone("Asia/Shanghai"))
        #expect(single.nextFireTime(after: longAgo) == utc("2026-05-01 01:00:00"))
    }

    // MARK: day

    @Test func dailyFiresEveryDayFromStartToEnd() throws {
        let times = try fires(periodical(start: "2026-03-01 00:00:00", end: "2026-03-05 23:59:59", time: "09:00:00", unit: "day"))
        #expect(times == (1...5).map { utc("2026-03-0\($0) 09:00:00") })
    }

    @Test func dailyEveryThirdDayCountsFromStartsDay() throws {
        // Day 0 is 1 March, whose 09:00 is before start: it is skipped but still counts.
        let times = try fires(periodical(start: "2026-03-01 10:00:00", end: "2026-03-12 23:00:00", time: "09:00:00", unit: "DAY", frequency: 3))
        #expect(times == [utc("2026-03-04 09:00:00"), utc("2026-03-07 09:00:00"), utc("2026-03-10 09:00:00")])
    }

    @Test func dailyIgnoresPoint() throws {
        let times = try fires(periodical(start: "2026-03-01 00:00:00", end: "2026-03-02 23:00:00", time: "09:00:00", unit: "day", point: ["MON", "07"]))
        #expect(times == [utc("2026-03-01 09:00:00"), utc("2026-03-02 09:00:00")])
    }

    @Test func dailyStaysAtNineLocalAcrossBerlinChanges() throws {
        let spring = try fires(periodical(start: "2026-03-27 00:00:00", end: "2026-03-30 23:00:00", time: "09:00:00", unit: "day", zone: "Europe/Berlin"))
        #expect(spring == [utc("2026-03-27 08:00:00"), utc("2026-03-28 08:00:00"), utc("2026-03-29 07:00:00"), utc("2026-03-30 07:00:00")])
        let autumn = try fires(periodical(start: "2026-10-24 00:00:00", end: "2026-10-26 23:00:00", time: "09:00:00", unit: "day", zone: "Europe/Berlin"))
        #expect(autumn == [utc("2026-10-24 07:00:00"), utc("2026-10-25 08:00:00"), utc("2026-10-26 08:00:00")])
    }

    @Test func dailyAtASkippedOrRepeatedTimeFiresOnceADayInBerlin() throws {
        let spring = try fires(periodical(start: "2026-03-28 00:00:00", end: "2026-03-30 23:00:00", time: "02:30:00", unit: "day", zone: "Europe/Berlin"))
        // 29 March has no 02:30: it fires at 03:00 CEST.
        #expect(spring == [utc("2026-03-28 01:30:00"), utc("2026-03-29 01:00:00"), utc("2026-03-30 00:30:00")])
        let autumn = try fires(periodical(start: "2026-10-24 00:00:00", end: "2026-10-26 23:00:00", time: "02:30:00", unit: "day", zone: "Europe/Berlin"))
        // 25 October has 02:30 twice: it fires at the first (CEST).
        #expect(autumn == [utc("2026-10-24 00:30:00"), utc("2026-10-25 00:30:00"), utc("2026-10-26 01:30:00")])
    }

    @Test func dailyAtASkippedOrRepeatedTimeFiresOnceADayInNewYork() throws {
        let spring = try fires(periodical(start: "2026-03-07 00:00:00", end: "2026-03-09 23:00:00", time: "02:30:00", unit: "day", zone: "America/New_York"))
        #expect(spring == [utc("2026-03-07 07:30:00"), utc("2026-03-08 07:00:00"), utc("2026-03-09 06:30:00")])
        let autumn = try fires(periodical(start: "2026-10-31 00:00:00", end: "2026-11-02 23:00:00", time: "01:30:00", unit: "day", zone: "America/New_York"))
        #expect(autumn == [utc("2026-10-31 05:30:00"), utc("2026-11-01 05:30:00"), utc("2026-11-02 06:30:00")])
        let nine = try fires(periodical(start: "2026-03-07 00:00:00", end: "2026-03-09 23:00:00", time: "09:00:00", unit: "day", zone: "America/New_York"))
        #expect(nine == [utc("2026-03-07 14:00:00"), utc("2026-03-08 13:00:00"), utc("2026-03-09 13:00:00")])
    }

    // MARK: week

    @Test func weeklyFiresOnEachPointInOrder() throws {
        // 2026-03-02 is a Monday.
        let times = try fires(periodical(start: "2026-03-02 00:00:00", end: "2026-03-15 23:00:00", time: "09:00:00", unit: "week", point: ["FRI", "MON", "wed"]))
        #expect(times == ["02", "04", "06", "09", "11", "13"].map { utc("2026-03-\($0) 09:00:00") })
    }

    @Test func weeklyEverySecondWeekCountsFromTheWeekContainingStart() throws {
        // Start Wednesday 4 March: its week (2–8 March) is week 0, so Monday 2 March is
        // skipped (before start) but Friday 6 March fires; week 1 is skipped; weeks 2 and 4 fire.
        let times = try fires(periodical(start: "2026-03-04 00:00:00", end: "2026-04-05 23:00:00", time: "09:00:00", unit: "Week", frequency: 2, point: ["MON", "FRI"]))
        #expect(times == [utc("2026-03-06 09:00:00"), utc("2026-03-16 09:00:00"), utc("2026-03-20 09:00:00"),
                          utc("2026-03-30 09:00:00"), utc("2026-04-03 09:00:00")])
    }

    @Test func weeklyEveryThirdWeekOnSunday() throws {
        // Sunday ends the ISO week: start Sunday 1 March is in week 0 (23 Feb–1 Mar).
        let times = try fires(periodical(start: "2026-03-01 00:00:00", end: "2026-04-30 23:00:00", time: "09:00:00", unit: "week", frequency: 3, point: ["SUN"]))
        #expect(times == [utc("2026-03-01 09:00:00"), utc("2026-03-22 09:00:00"), utc("2026-04-12 09:00:00")])
    }

    @Test func weeklyAcrossDaylightSavingChanges() throws {
        let berlin = try fires(periodical(start: "2026-03-15 00:00:00", end: "2026-04-05 23:00:00", time: "02:30:00", unit: "week", point: ["SUN"], zone: "Europe/Berlin"))
        #expect(berlin == [utc("2026-03-15 01:30:00"), utc("2026-03-22 01:30:00"), utc("2026-03-29 01:00:00"), utc("2026-04-05 00:30:00")])
        let berlinAutumn = try fires(periodical(start: "2026-10-18 00:00:00", end: "2026-11-01 23:00:00", time: "02:30:00", unit: "week", point: ["SUN"], zone: "Europe/Berlin"))
        #expect(berlinAutumn == [utc("2026-10-18 00:30:00"), utc("2026-10-25 00:30:00"), utc("2026-11-01 01:30:00")])
        let newYork = try fires(periodical(start: "2026-10-25 00:00:00", end: "2026-11-08 23:00:00", time: "01:30:00", unit: "week", point: ["SUN"], zone: "America/New_York"))
        #expect(newYork == [utc("2026-10-25 05:30:00"), utc("2026-11-01 05:30:00"), utc("2026-11-08 06:30:00")])
        let newYorkSpring = try fires(periodical(start: "2026-03-01 00:00:00", end: "2026-03-15 23:00:00", time: "02:30:00", unit: "week", point: ["SUN"], zone: "America/New_York"))
        #expect(newYorkSpring == [utc("2026-03-01 07:30:00"), utc("2026-03-08 07:00:00"), utc("2026-03-15 06:30:00")])
    }

    // MARK: month

    @Test func monthlyFiresOnEachPointDay() throws {
        let times = try fires(periodical(start: "2026-01-01 00:00:00", end: "2026-02-28 23:00:00", time: "09:00:00", unit: "month", point: ["15", "01", "5"]))
        #expect(times == ["01-01", "01-05", "01-15", "02-01", "02-05", "02-15"].map { utc("2026-\($0) 09:00:00") })
    }

    @Test func monthlyEveryThirdMonthCountsFromStartsMonth() throws {
        // Month 0 is January (10 January is before start and skipped); then April, July.
        let times = try fires(periodical(start: "2026-01-15 00:00:00", end: "2026-08-31 23:00:00", time: "09:00:00", unit: "MONTH", frequency: 3, point: ["10", "20"]))
        #expect(times == ["01-20", "04-10", "04-20", "07-10", "07-20"].map { utc("2026-\($0) 09:00:00") })
    }

    @Test func theThirtyFirstIsSkippedInShorterMonthsNotMoved() throws {
        let times = try fires(periodical(start: "2026-01-01 00:00:00", end: "2026-12-31 23:00:00", time: "09:00:00", unit: "month", point: ["31"]))
        #expect(times == ["01", "03", "05", "07", "08", "10", "12"].map { utc("2026-\($0)-31 09:00:00") })
    }

    @Test func februaryEndsInLeapAndCommonYears() throws {
        let common = try fires(periodical(start: "2026-02-01 00:00:00", end: "2026-03-02 23:00:00", time: "09:00:00", unit: "month", point: ["28", "29", "30", "31"]))
        #expect(common == [utc("2026-02-28 09:00:00")])
        let leap = try fires(periodical(start: "2028-02-01 00:00:00", end: "2028-03-02 23:00:00", time: "09:00:00", unit: "month", point: ["28", "29", "30", "31"]))
        #expect(leap == [utc("2028-02-28 09:00:00"), utc("2028-02-29 09:00:00")])
    }

    @Test func leapDayFiresOnlyInALeapYear() throws {
        let leapYear = try fires(periodical(start: "2027-06-01 00:00:00", end: "2028-05-31 23:00:00", time: "09:00:00", unit: "month", point: ["29"]))
        #expect(leapYear.count == 12)
        #expect(leapYear.contains(utc("2028-02-29 09:00:00")))
        let commonYear = try fires(periodical(start: "2026-06-01 00:00:00", end: "2027-05-31 23:00:00", time: "09:00:00", unit: "month", point: ["29"]))
        #expect(commonYear.count == 11)
        #expect(!commonYear.contains { $0 >= utc("2027-02-01 00:00:00") && $0 < utc("2027-03-01 00:00:00") })
    }

    @Test func monthlyAcrossDaylightSavingChanges() throws {
        let berlin = try fires(periodical(start: "2026-01-01 00:00:00", end: "2026-04-30 23:00:00", time: "02:30:00", unit: "month", point: ["29"], zone: "Europe/Berlin"))
        // No 29 February in 2026; 29 March has no 02:30 (03:00 CEST).
        #expect(berlin == [utc("2026-01-29 01:30:00"), utc("2026-03-29 01:00:00"), utc("2026-04-29 00:30:00")])
        let berlinAutumn = try fires(periodical(start: "2026-09-01 00:00:00", end: "2026-11-30 23:00:00", time: "02:30:00", unit: "month", point: ["25"], zone: "Europe/Berlin"))
        #expect(berlinAutumn == [utc("2026-09-25 00:30:00"), utc("2026-10-25 00:30:00"), utc("2026-11-25 01:30:00")])
        let newYork = try fires(periodical(start: "2026-09-01 00:00:00", end: "2026-12-31 23:00:00", time: "01:30:00", unit: "month", point: ["01"], zone: "America/New_York"))
        #expect(newYork == [utc("2026-09-01 05:30:00"), utc("2026-10-01 05:30:00"), utc("2026-11-01 05:30:00"), utc("2026-12-01 06:30:00")])
        let newYorkSpring = try fires(periodical(start: "2026-02-01 00:00:00", end: "2026-04-30 23:00:00", time: "02:30:00", unit: "month", point: ["08"], zone: "America/New_York"))
        #expect(newYorkSpring == [utc("2026-02-08 07:30:00"), utc("2026-03-08 07:00:00"), utc("2026-04-08 06:30:00")])
    }

    // MARK: bounds

    @Test func startAndEndAreBothInclusive() throws {
        let exact = try fires(periodical(start: "2026-03-01 09:00:00", end: "2026-03-03 09:00:00", time: "09:00:00", unit: "day"))
        #expect(exact == [utc("2026-03-01 09:00:00"), utc("2026-03-02 09:00:00"), utc("2026-03-03 09:00:00")])
        let inside = try fires(periodical(start: "2026-03-01 09:00:01", end: "2026-03-03 08:59:59", time: "09:00:00", unit: "day"))
        #expect(inside == [utc("2026-03-02 09:00:00")])
    }

    @Test func boundsAreInTheTriggersZone() throws {
        // End 09:00 Berlin time is 08:00 UTC: 09:00 local on the 3rd is the last.
        let times = try fires(periodical(start: "2026-03-01 00:00:00", end: "2026-03-03 09:00:00", time: "09:00:00", unit: "day", zone: "Europe/Berlin"))
        #expect(times.last == utc("2026-03-03 08:00:00"))
        #expect(times.count == 3)
    }

    @Test func aFutureStartFiresNothingBeforeIt() throws {
        let future = try trigger(periodical(start: "2026-06-10 12:00:00", end: "2026-06-20 00:00:00", time: "09:00:00", unit: "day"))
        let now = utc("2026-03-01 00:00:00")
        #expect(future.nextFireTime(after: now) == utc("2026-06-11 09:00:00"))
        #expect(future.nextFireTimes(after: now).count == 5)
        #expect(future.occurrences(after: now, limit: 100).count == 9)
        #expect(future.nextFireTime(after: utc("2026-06-19 09:00:00")) == nil)
    }

    @Test func afterIsExclusiveAndMidRuleQueriesStartWhereAsked() throws {
        let daily = try trigger(periodical(start: "2026-03-01 00:00:00", end: "2026-12-31 00:00:00", time: "09:00:00", unit: "day", zone: "America/New_York"))
        #expect(daily.nextFireTime(after: utc("2026-07-04 13:00:00")) == utc("2026-07-05 13:00:00"))
        #expect(daily.nextFireTime(after: utc("2026-07-04 12:59:59")) == utc("2026-07-04 13:00:00"))
        #expect(daily.nextFireTimes(after: utc("2026-07-04 13:00:00"), count: 5) == (5...9).map { utc("2026-07-0\($0) 13:00:00") })
        #expect(daily.nextFireTimes(after: utc("2026-12-28 14:00:00")) == [utc("2026-12-29 14:00:00"), utc("2026-12-30 14:00:00")])
    }

    /// Every unit × frequency × point combination agrees with a brute-force reading of the
    /// documented rule: walk every day, keep those the rule names.
    @Test(arguments: ["day", "week", "month"], [1, 2, 5, 100])
    func everyCombinationMatchesTheDocumentedRule(unit: String, frequency: Int) throws {
        let points: [[String]] = switch unit {
        case "week": [["MON"], ["SUN"], ["TUE", "SAT"], Weekday.allCases.map(\.jpushName)]
        case "month": [["01"], ["31"], ["15", "29"], (1...31).map { String($0) }]
        default: [[]]
        }
        for point in points {
            let start = "2026-02-18 10:00:00"
            let rule = try trigger(periodical(start: start, end: "2027-02-18 10:00:00", time: "09:30:00", unit: unit,
                                              frequency: frequency, point: point.isEmpty ? nil : point, zone: "Europe/Berlin"))
            let berlin = zone("Europe/Berlin")
            var expected: [Date] = []
            var day = LocalDate(year: 2026, month: 2, day: 16)!   // Monday of start's week
            while day <= LocalDate(year: 2027, month: 2, day: 18)! {
                let dayIndex = day.dayNumber - LocalDate(year: 2026, month: 2, day: 18)!.dayNumber
                let inPeriod: Bool = switch unit {
                case "day": dayIndex % frequency == 0
                case "week": ((day.dayNumber - LocalDate(year: 2026, month: 2, day: 16)!.dayNumber) / 7) % frequency == 0
                    && point.contains(day.weekday.jpushName)
                default: ((day.year - 2026) * 12 + day.month - 2) % frequency == 0
                    && point.compactMap { Int($0) }.contains(day.day)
                }
                let instant = berlin.instant(of: LocalDateTime(date: day, time: LocalTime(hour: 9, minute: 30)!))
                if inPeriod, instant >= berlin.instant(of: LocalDateTime(jpush: start)!) { expected.append(instant) }
                day = day.addingDays(1)
            }
            #expect(rule.occurrences(after: longAgo, limit: 1000) == expected, "\(unit) every \(frequency) on \(point)")
            #expect(!expected.isEmpty || frequency == 100 || point == ["31"])
        }
    }
}
