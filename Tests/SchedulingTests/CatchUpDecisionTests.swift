import Foundation
import Testing
@testable import Scheduling

@Suite struct CatchUpDecisionTests {
    private func daily() throws -> ScheduleTrigger {
        try trigger(periodical(start: "2026-03-01 00:00:00", end: "2026-03-31 23:00:00", time: "09:00:00", unit: "day"))
    }

    @Test func onTimeFiresTheDueOccurrence() throws {
        let decision = CatchUpDecision(trigger: try daily(), since: utc("2026-03-01 09:00:00"), now: utc("2026-03-02 09:00:01"))
        #expect(decision.fire == [utc("2026-03-02 09:00:00")])
        #expect(decision.missed == [])
        #expect(decision.watermark == utc("2026-03-02 09:00:00"))
        #expect(decision.next == utc("2026-03-03 09:00:00"))
    }

    @Test func afterDowntimeRecentFiresAndOlderIsMissed() throws {
        let decision = CatchUpDecision(trigger: try daily(), since: utc("2026-03-01 09:00:00"), now: utc("2026-03-04 09:05:00"))
        #expect(decision.fire == [utc("2026-03-04 09:00:00")])
        #expect(decision.missed == [utc("2026-03-02 09:00:00"), utc("2026-03-03 09:00:00")])
        #expect(decision.watermark == utc("2026-03-04 09:00:00"))
        #expect(decision.next == utc("2026-03-05 09:00:00"))
    }

    @Test func lateByExactlyTheGraceStillFiresAndASecondMoreIsMissed() throws {
        let since = utc("2026-03-01 09:00:00")
        let atGrace = CatchUpDecision(trigger: try daily(), since: since, now: utc("2026-03-02 09:10:00"))
        #expect(atGrace.fire == [utc("2026-03-02 09:00:00")])
        let beyond = CatchUpDecision(trigger: try daily(), since: since, now: utc("2026-03-02 09:10:01"))
        #expect(beyond.fire == [])
        #expect(beyond.missed == [utc("2026-03-02 09:00:00")])
        #expect(beyond.watermark == utc("2026-03-02 09:00:00"))
    }

    @Test func theGraceIsConfigurable() throws {
        let decision = CatchUpDecision(trigger: try daily(), since: utc("2026-03-01 09:00:00"), now: utc("2026-03-03 10:00:00"), grace: 2 * 86_400)
        #expect(decision.fire == [utc("2026-03-02 09:00:00"), utc("2026-03-03 09:00:00")])
        let strict = CatchUpDecision(trigger: try daily(), since: utc("2026-03-01 09:00:00"), now: utc("2026-03-02 09:00:01"), grace: 0)
        #expect(strict.missed == [utc("2026-03-02 09:00:00")])
    }

    @Test func nothingDueKeepsTheWatermark() throws {
        let since = utc("2026-03-02 09:00:00")
        let decision = CatchUpDecision(trigger: try daily(), since: since, now: utc("2026-03-03 08:59:59"))
        #expect(decision.fire == [] && decision.missed == [])
        #expect(decision.watermark == since)
        #expect(decision.next == utc("2026-03-03 09:00:00"))
    }

    @Test func decidingAgainFromTheWatermarkNeverFiresTwice() throws {
        let now = utc("2026-03-04 09:05:00")
        let first = CatchUpDecision(trigger: try daily(), since: utc("2026-03-01 09:00:00"), now: now)
        let again = CatchUpDecision(trigger: try daily(), since: first.watermark, now: now.addingTimeInterval(30))
        #expect(again.fire == [] && again.missed == [])
    }

    @Test func aSingleTriggerFiresOnceThenRunsOut() throws {
        let single = try trigger(#"{"single": {"time": "2026-03-02 09:00:00"}}"#)
        let before = CatchUpDecision(trigger: single, since: nil, now: utc("2026-03-02 08:00:00"))
        #expect(before.fire == [] && before.next == utc("2026-03-02 09:00:00"))
        let due = CatchUpDecision(trigger: single, since: nil, now: utc("2026-03-02 09:03:00"))
        #expect(due.fire == [utc("2026-03-02 09:00:00")])
        #expect(due.next == nil)
        let after = CatchUpDecision(trigger: single, since: due.watermark, now: utc("2026-03-02 09:04:00"))
        #expect(after.fire == [] && after.missed == [] && after.next == nil)
        let tooLate = CatchUpDecision(trigger: single, since: nil, now: utc("2026-03-02 12:00:00"))
        #expect(tooLate.fire == [] && tooLate.missed == [utc("2026-03-02 09:00:00")])
    }

    @Test func withoutAWatermarkEverythingFromStartIsConsidered() throws {
        let decision = CatchUpDecision(trigger: try daily(), since: nil, now: utc("2026-03-03 09:01:00"))
        #expect(decision.missed == [utc("2026-03-01 09:00:00"), utc("2026-03-02 09:00:00")])
        #expect(decision.fire == [utc("2026-03-03 09:00:00")])
    }

    @Test func theLastOccurrenceLeavesNoNext() throws {
        let decision = CatchUpDecision(trigger: try daily(), since: utc("2026-03-30 09:00:00"), now: utc("2026-04-02 00:00:00"))
        #expect(decision.missed == [utc("2026-03-31 09:00:00")])
        #expect(decision.next == nil)
    }
}
