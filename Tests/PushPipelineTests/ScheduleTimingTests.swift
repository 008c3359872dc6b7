import Foundation
import PushPipeline
import RelayCore
import Scheduling
import Testing

/// Where a schedule's watermark and next fire time stand after a create or an update (pure).
@Suite struct ScheduleTimingTests {
    static let utc = TimeZone(identifier: "UTC")!
    /// 2030-01-10 12:00:00 UTC.
    static let now = Date(timeIntervalSince1970: 1_894_276_800)

    /// Daily at `time` UTC from 2030-01-01 to 2030-02-01.
    static func daily(_ time: String) throws -> ScheduleTrigger {
        try ScheduleTrigger(json: .object(["periodical": .object([
            "start": .string("2030-01-01 00:00:00"), "end": .string("2030-02-01 00:00:00"), "time": .string(time),
            "time_unit": .string("day"), "frequency": .int(1),
        ])]), defaultTimeZone: utc)
    }

    @Test func aNewScheduleStartsAMinuteBeforeItsCreation() throws {
        // 11:59:30 today is within the minute before creation: it is still due.
        let timing = ScheduleTiming(trigger: try Self.daily("11:59:30"), enabled: true, storedWatermark: nil, now: Self.now)
        #expect(timing.watermark == Self.now.addingTimeInterval(-60))
        #expect(timing.nextFireAt == Self.now.addingTimeInterval(-30))
        // 11:58 is older than that: the next one is tomorrow's.
        let older = ScheduleTiming(trigger: try Self.daily("11:58:00"), enabled: true, storedWatermark: nil, now: Self.now)
        #expect(older.nextFireAt == Self.now.addingTimeInterval(86_400 - 120))
    }

    @Test func anOccurrenceFiredUnderTheOldRuleIsNotFiredAgain() throws {
        // Fired 12:00:00 a moment ago; the update at 12:00:10 keeps the watermark there.
        let fired = Self.now
        let timing = ScheduleTiming(trigger: try Self.daily("12:00:00"), enabled: true, storedWatermark: fired,
                                    now: Self.now.addingTimeInterval(10))
        #expect(timing.watermark == fired)
        #expect(timing.nextFireAt == fired.addingTimeInterval(86_400))
    }

    @Test func disabledHasNoNextFireAndReenablingSkipsWhatFellInBetween() throws {
        let trigger = try Self.daily("12:00:00")
        #expect(ScheduleTiming(trigger: trigger, enabled: false, storedWatermark: nil, now: Self.now).nextFireAt == nil)
        // Disabled since the 3rd, enabled again on the 10th at 12:30: the next is the 11th.
        let weekAgo = Self.now.addingTimeInterval(-7 * 86_400)
        let timing = ScheduleTiming(trigger: trigger, enabled: true, storedWatermark: weekAgo, now: Self.now.addingTimeInterval(1800))
        #expect(timing.watermark == Self.now.addingTimeInterval(1800 - 60))
        #expect(timing.nextFireAt == Self.now.addingTimeInterval(86_400))
    }

    @Test func aRuleThatRanOutHasNoNextFire() throws {
        let late = Date(timeIntervalSince1970: 1_896_955_200 + 86_400)  // 2030-02-11
        #expect(ScheduleTiming(trigger: try Self.daily("12:00:00"), enabled: true, storedWatermark: nil, now: late).nextFireAt == nil)
    }
}
