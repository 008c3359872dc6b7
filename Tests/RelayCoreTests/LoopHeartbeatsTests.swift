import RelayCore
import Synchronization
import Testing

/// When a loop counts as stalled, driven by hand-set instants.
@Suite struct LoopHeartbeatsTests {
    @Test func aLoopIsStalledOnlyPastItsWaitAndTheAllowance() {
        var beats = LoopHeartbeats(allowance: .seconds(60))
        let start = ContinuousClock.now
        #expect(beats.stalled(at: start + .seconds(3600)).isEmpty, "no loop, nothing stalled")
        beats.beat("leasing", at: start, nextWithin: .seconds(2))
        beats.beat("scheduler", at: start, nextWithin: .seconds(30))
        #expect(beats.stalled(at: start + .seconds(62)).isEmpty)
        #expect(beats.stalled(at: start + .seconds(63)) == ["leasing"], "past its 2 s wait and the 60 s a pass may take")
        #expect(beats.stalled(at: start + .seconds(91)) == ["leasing", "scheduler"])
        beats.beat("leasing", at: start + .seconds(90), nextWithin: .zero)
        #expect(beats.stalled(at: start + .seconds(91)) == ["scheduler"], "a beat brings a loop back")
        beats.end("scheduler")
        #expect(beats.stalled(at: start + .seconds(149)).isEmpty, "a loop that ended on purpose is not expected")
    }

    @Test func livenessReadsItsInjectedClock() {
        let start = ContinuousClock.now
        let clock = Clock(start)
        let liveness = Liveness(allowance: .seconds(1), now: { clock.now })
        liveness.beat("resolving", nextWithin: .seconds(2))
        clock.advance(.seconds(3))
        #expect(liveness.stalled.isEmpty)
        clock.advance(.milliseconds(1))
        #expect(liveness.stalled == ["resolving"])
        #expect(liveness.allowance == .seconds(1))
    }

    private final class Clock: Sendable {
        private let instant: Mutex<ContinuousClock.Instant>
        init(_ now: ContinuousClock.Instant) { instant = Mutex(now) }
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
    }
}
