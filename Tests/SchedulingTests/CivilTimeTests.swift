import Foundation
import Testing
@testable import Scheduling

@Suite struct CivilTimeTests {
    @Test func dayNumbersMatchKnownDatesAndRoundTrip() {
        #expect(LocalDate(year: 1970, month: 1, day: 1)!.dayNumber == 0)
        #expect(LocalDate(year: 2000, month: 3, day: 1)!.dayNumber == 11_017)
        #expect(LocalDate(year: 1969, month: 12, day: 31)!.dayNumber == -1)
        for number in stride(from: -800_000, through: 800_000, by: 997) {
            #expect(LocalDate(dayNumber: number).dayNumber == number)
        }
        // Consecutive day numbers are consecutive dates across month, year and leap-day ends.
        var date = LocalDate(year: 2023, month: 12, day: 25)!
        for _ in 0..<800 {
            let next = date.addingDays(1)
            #expect(next > date)
            #expect(next.day == 1 || next.day == date.day + 1)
            date = next
        }
    }

    @Test func weekdaysFollowTheCalendar() {
        #expect(LocalDate(year: 1970, month: 1, day: 1)!.weekday == .thursday)
        #expect(LocalDate(year: 2026, month: 3, day: 29)!.weekday == .sunday)
        #expect(LocalDate(year: 2026, month: 3, day: 2)!.weekday == .monday)
        #expect(LocalDate(year: 2024, month: 2, day: 29)!.weekday == .thursday)
        #expect(LocalDate(year: 1969, month: 12, day: 29)!.weekday == .monday)
    }

    @Test func onlyRealDatesExist() {
        #expect(LocalDate(year: 2024, month: 2, day: 29) != nil)
        #expect(LocalDate(year: 2000, month: 2, day: 29) != nil)
        #expect(LocalDate(year: 2025, month: 2, day: 29) == nil)
        #expect(LocalDate(year: 2100, month: 2, day: 29) == nil)
        #expect(LocalDate(year: 2026, month: 4, day: 31) == nil)
        #expect(LocalDate(year: 2026, month: 13, day: 1) == nil)
        #expect(LocalDate(year: 2026, month: 1, day: 0) == nil)
    }

    @Test func addingAYearTurnsLeapDayIntoTheTwentyEighth() {
        #expect(LocalDate(year: 2024, month: 2, day: 29)!.addingYears(1) == LocalDate(year: 2025, month: 2, day: 28))
        #expect(LocalDate(year: 2024, month: 2, day: 29)!.addingYears(4) == LocalDate(year: 2028, month: 2, day: 29))
        #expect(LocalDate(year: 2026, month: 3, day: 31)!.addingYears(1) == LocalDate(year: 2027, month: 3, day: 31))
    }

    @Test(arguments: [
        ("2026-03-01 09:05:07", true), ("2024-02-29 23:59:59", true), ("2025-02-29 09:00:00", false),
        ("2026-3-1 09:00:00", false), ("2026-03-01T09:00:00", false), ("2026-03-01 24:00:00", false),
        ("2026-03-01 09:60:00", false), ("2026-03-01 09:00", false), ("2026-03-01  09:00:00", false),
        (" 2026-03-01 09:00:00", false), ("+026-03-01 09:00:00", false), ("", false),
    ])
    func dateTimesParseOnlyInJPushFormat(text: String, valid: Bool) {
        let parsed = LocalDateTime(jpush: text)
        #expect((parsed != nil) == valid)
        if let parsed { #expect(parsed.description == text) }
    }

    @Test func timesOfDayAcceptSecondsOrNot() {
        #expect(LocalTime(jpush: "09:30:15") == LocalTime(hour: 9, minute: 30, second: 15))
        #expect(LocalTime(jpush: "09:30") == LocalTime(hour: 9, minute: 30, second: 0))
        #expect(LocalTime(jpush: "9:30") == nil)
        #expect(LocalTime(jpush: "23:59:60") == nil)
        #expect(LocalTime(jpush: "09:30:15:00") == nil)
    }

    @Test func weekdayNamesIgnoreCase() {
        #expect(Weekday(jpushName: "MON") == .monday)
        #expect(Weekday(jpushName: "sun") == .sunday)
        #expect(Weekday(jpushName: "Wed") == .wednesday)
        #expect(Weekday(jpushName: "MONDAY") == nil)
        #expect(Weekday.allCases.map(\.jpushName) == ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"])
    }
}
