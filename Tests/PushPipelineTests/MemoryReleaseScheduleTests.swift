@testable import PushPipeline
import Testing

/// `MemoryReleaseSchedule`: a trim after dropped clients are shut down, at most once per
/// interval, and a wave held back by the interval trimmed once it has passed.
@Suite struct MemoryReleaseScheduleTests {
    let start = ContinuousClock.now

    @Test func nothingDroppedNothingTrimmed() {
        var schedule = MemoryReleaseSchedule(interval: .seconds(60))
        let first = schedule.tick(now: start)
        let hourLater = schedule.tick(now: start + .seconds(3600))
        #expect(!first && !hourLater)
    }

    @Test func aTrimWaitsForEveryDroppedClientToShutDown() {
        var schedule = MemoryReleaseSchedule(interval: .seconds(60))
        schedule.dropped()
        schedule.dropped()
        let bothShuttingDown = schedule.tick(now: start)
        let oneShuttingDown = schedule.shutDown(now: start + .seconds(1))
        let allShutDown = schedule.shutDown(now: start + .seconds(2))
        let hourLater = schedule.tick(now: start + .seconds(3600))
        #expect(!bothShuttingDown && !oneShuttingDown)
        #expect(allShutDown)
        #expect(!hourLater, "trimmed: nothing owed")
    }

    @Test func aWaveWithinTheIntervalIsTrimmedOnceItHasPassed() {
        var schedule = MemoryReleaseSchedule(interval: .seconds(60))
        schedule.dropped()
        let firstWave = schedule.shutDown(now: start)
        schedule.dropped()
        let secondWave = schedule.shutDown(now: start + .seconds(10))
        let before = schedule.tick(now: start + .seconds(59))
        let atTheMinute = schedule.tick(now: start + .seconds(60))
        let after = schedule.tick(now: start + .seconds(121))
        #expect(firstWave)
        #expect(!secondWave && !before, "within the minute")
        #expect(atTheMinute)
        #expect(!after)
    }
}
