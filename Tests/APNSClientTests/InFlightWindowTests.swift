import Testing
@testable import APNSClient

/// `InFlightWindow` without sockets: round trips, answers and errors go in with the time,
/// sizes come out.
@Suite struct InFlightWindowTests {
    private static let limits = InFlightWindow.Limits(floor: 2000, ceiling: 32000, baseConnections: 2, maxConnections: 32)

    /// Feeds one interval's answers (`count` of them, `latency` each, or spread evenly from
    /// `latency` to `latency + spread`, the pool holding `load`, `sent` of them on streams:
    /// all without it) from `start` on, the last at its end, and returns the size change
    /// (decided with the last) and the end. Without a `count`, as many as `sent` requests each
    /// taking the mean latency give (Little's law: answers a second = sent ÷ latency), at most
    /// `capacity` a second.
    @discardableResult
    private func interval(_ window: inout InFlightWindow, latency: Double, spread: Double = 0, load: Int, sent: Int? = nil,
                          start: Double, count: Int? = nil, capacity: Double = .infinity) -> (size: Int?, end: Double) {
        let sent = sent ?? load
        let length = max(window.baseRoundTrip ?? latency, InFlightWindow.minimumInterval)
        let rate = min(capacity, Double(sent) / (latency + spread / 2))
        let count = count ?? max(InFlightWindow.minimumAnswers, Int(rate * length))
        var change: Int?
        for index in 0..<count {
            let now = start + length * Double(index + 1) / Double(count)
            // The slowest first: the least answer comes last, as the interval is decided.
            let late = spread * Double(count - 1 - index) / Double(count - 1)
            if let size = window.answered(latency: latency + late, load: load, sent: sent, now: now) { change = size }
        }
        return (change, start + length)
    }

    /// A window whose base round trip is `base` (a PING) and whose first interval starts at 0,
    /// with the floor's requests on streams.
    private func window(base: Double) -> InFlightWindow {
        var window = InFlightWindow(limits: Self.limits)
        window.roundTrip(base, now: 0)
        #expect(window.answered(latency: base, load: window.size, sent: window.size, now: 0) == nil)
        return window
    }

    @Test func startsAtTheFloorOnTheBaseConnections() {
        let window = InFlightWindow(limits: Self.limits)
        #expect(window.size == 2000)
        #expect(window.connections == 2)
        #expect(window.baseRoundTrip == nil)
    }

    @Test func growsWhileTheRoundTripLimitsTheRate() {
        var window = window(base: 0.150)
        var now = 0.0
        var changes: [Int?] = []
        for _ in 0..<14 {
            let (size, end) = interval(&window, latency: 0.152, load: window.size, start: now)
            now = end
            changes.append(size)
        }
        // Every other round trip: the one after a growth answers what was sent before it.
        #expect(changes == [3000, nil, 4500, nil, 6750, nil, 10125, nil, 15187, nil, 22780, nil, 32000, nil])
        // 30,000 above the floor at 1,000 streams a connection.
        #expect(window.connections == 32)
        window.peerAllows(streams: 1)
        #expect(window.streamsPerConnection == 1000, "APNs' one stream before a token was accepted is not its limit")
        window.peerAllows(streams: 5000)
        #expect(window.connections == 7)
        // A server allowing 100 streams needs 20 connections for the floor already.
        var narrow = InFlightWindow(limits: Self.limits)
        narrow.peerAllows(streams: 100)
        #expect(narrow.connections == 20)
    }

    @Test func holdsWhenUnusedOrWhenTheCPULimits() {
        var window = window(base: 0.150)
        // Half the window in use: the caller, not the pipe, limits.
        #expect(interval(&window, latency: 0.150, load: 1000, start: 0).size == nil)
        // Next door (0.2 ms) with answers 10 ms late: requests queue at a CPU, no growth.
        // (The first interval holds the PING's answer on time: decided from the second on.)
        var near = self.window(base: 0.0002)
        let now = interval(&near, latency: 0.010, load: near.size, start: 0).end
        let size = near.size
        #expect(interval(&near, latency: 0.010, load: size, start: now).size == nil)
        #expect(near.size == size)
    }

    @Test func shrinksWhenAnswersQueueBeyondTheBaseRoundTrip() {
        var window = window(base: 0.150)
        var now = 0.0
        for _ in 0..<6 { now = interval(&window, latency: 0.150, load: window.size, start: now).end }
        #expect(window.size == 6750)
        // 90 ms of queueing at 150 ms (beyond a quarter of it): 6,750 took 240 ms, so the
        // rate needs 6,750 × 165 / 240 at the base (and the 15 ms it may queue).
        let (size, end) = interval(&window, latency: 0.240, load: window.size, start: now)
        #expect(size == 4640)
        now = end
        // Between the two thresholds (15 and 37.5 ms): held.
        let held = interval(&window, latency: 0.175, load: window.size, start: now)
        #expect(held.size == nil)
        now = held.end
        // A queue twice the round trip: halved, no more, in one round trip.
        let halved = interval(&window, latency: 0.450, load: window.size, start: now)
        #expect(halved.size == 2320)
        now = halved.end
        // Never below the floor.
        for _ in 0..<4 { now = interval(&window, latency: 0.300, load: window.size, start: now).end }
        #expect(window.size == 2000)
    }

    @Test func aBatchWorkedThroughOneByOneIsNotQueueing() {
        var window = window(base: 0.150)
        var now = 0.0
        var sizes: [Int] = []
        // Each round trip's answers 150–210 ms (60 ms of spread, a mean of 30 ms over the
        // base: a batch of requests each side takes one after another), the least on time.
        for _ in 0..<6 {
            let (size, end) = interval(&window, latency: 0.150, spread: 0.060, load: window.size, start: now)
            now = end
            if let size { sizes.append(size) }
        }
        #expect(sizes == [3000, 4500, 6750])
        // A spread of a mean beyond a quarter of the round trip: the window is more than 1.25 ×
        // what the rate needs at the base, and holds.
        let spread = interval(&window, latency: 0.150, spread: 0.100, load: window.size, start: now)
        #expect(spread.size == nil)
        now = spread.end
        // A queue that stays delays the least answer too: 90 ms beyond the base, whatever the spread.
        #expect(interval(&window, latency: 0.240, spread: 0.100, load: window.size, start: now).size == 4640)
    }

    @Test func growsNoFurtherThanWhatTheRateNeedsAtTheBaseRoundTrip() {
        // APNs 300 ms away, a CPU that sends 20,000 a second, and the least answer on time
        // (the benchmark's 2-core box: the queue hides in each batch's spread, and the quickest
        // answer comes within the 30 ms it may queue).
        var window = window(base: 0.300)
        var now = 0.0
        var changes: [Int?] = []
        for _ in 0..<12 {
            let (size, end) = interval(&window, latency: 0.301, load: window.size, start: now, capacity: 20_000)
            now = end
            changes.append(size)
        }
        // 6,750 is within 1.25 × the 6,000 that 20,000 a second need at 300 ms: it grows once
        // more, and 10,125 is not: it stays.
        #expect(changes == [3000, nil, 4500, nil, 6750, nil, 10125, nil, nil, nil, nil, nil])
        // The quickest answers 20 ms late (below the 30 ms it may queue at 300 ms): still no growth.
        let within = interval(&window, latency: 0.320, load: window.size, start: now, capacity: 20_000)
        #expect(within.size == nil)
        #expect(window.size == 10125)
    }

    @Test func aBurstAfterAStallDoesNotGrowIt() {
        // APNs 300 ms away; a round trip in which 5,000 a second were answered (a stall on our
        // side), then one in which what it held up comes at once: 10,000 in 300 ms.
        var window = window(base: 0.300)
        let slow = interval(&window, latency: 0.301, load: window.size, start: 0, capacity: 5_000)
        #expect(slow.size == nil, "1.25 × 5,000 a second × 300 ms is less than the 2,000 it has")
        let burst = interval(&window, latency: 0.301, load: window.size, start: slow.end, count: 10_000)
        #expect(burst.size == nil, "it grows on the lesser rate of the two round trips")
        let sustained = interval(&window, latency: 0.301, load: window.size, start: burst.end, count: 10_000)
        #expect(sustained.size == 3000)
    }

    @Test func requestsWaitingForAStreamDoNotHoldItsGrowth() {
        // APNs 300 ms away. Grown to 3,000, the pool has 2,000 on its two connections' streams
        // (1,000 each) while the third takes streams one more per answer: 6,645 answers a
        // second, and 1.25 × 6,645 × 300 ms = 2,492 is less than the window but more than
        // what the server has.
        var window = window(base: 0.300)
        let first = interval(&window, latency: 0.301, load: window.size, start: 0)
        #expect(first.size == 3000)
        let held = interval(&window, latency: 0.301, load: 3000, sent: 2000, start: first.end)
        #expect(held.size == nil, "the round trip after a growth answers what was sent before it")
        let lagging = interval(&window, latency: 0.301, load: 3000, sent: 2000, start: held.end)
        #expect(lagging.size == 4500)
        // Connections that do not open: 1,000 on streams of the 4,500 held. The rate needs no
        // more than it has, but the window is past twice what the server has: it holds.
        var now = interval(&window, latency: 0.301, load: 4500, sent: 1000, start: lagging.end).end
        for _ in 0..<4 {
            let stuck = interval(&window, latency: 0.301, load: 4500, sent: 1000, start: now)
            #expect(stuck.size == nil)
            now = stuck.end
        }
        #expect(window.size == 4500)
    }

    @Test func halvesOnAnErrorAndHoldsStillForTwoRoundTrips() {
        var window = window(base: 0.100)
        var now = 0.0
        for _ in 0..<6 { now = interval(&window, latency: 0.100, load: window.size, start: now).end }
        #expect(window.size == 6750)
        #expect(window.failed() == 3375)
        // Within two round trips of the error: no growth however good the answers.
        let held = interval(&window, latency: 0.100, load: window.size, start: now)
        #expect(held.size == nil)
        let grown = interval(&window, latency: 0.100, load: window.size, start: held.end)
        #expect(grown.size == 5062)
        now = grown.end
        #expect(window.failed() == 2531)
        #expect(window.failed() == 2000)
        #expect(window.failed() == nil, "already at the floor")
    }

    @Test func theBaseRoundTripIsTheLeastOfTheLastTwoEpochs() {
        var window = InFlightWindow(limits: Self.limits)
        window.roundTrip(0.050, now: 0)
        window.roundTrip(0.080, now: 1)
        #expect(window.baseRoundTrip == 0.050)
        // The path got longer: the old least is forgotten after two epochs.
        window.roundTrip(0.300, now: InFlightWindow.epoch + 1)
        #expect(window.baseRoundTrip == 0.050)
        window.roundTrip(0.300, now: 2 * InFlightWindow.epoch + 2)
        #expect(window.baseRoundTrip == 0.300)
    }

    @Test func aLongerPathMeasuredByAnIdlePingIsTheBaseAtOnce() {
        // Next door, then APNs 150 ms away: every answer looks 143 ms queued against the old base.
        var window = window(base: 0.007)
        var now = 0.0
        for _ in 0..<8 { now = interval(&window, latency: 0.150, load: window.size, start: now).end }
        #expect(window.size == 2000, "shrunk to the floor")
        let held = interval(&window, latency: 0.150, load: window.size, start: now)
        #expect(held.size == nil)
        now = held.end
        #expect(window.baseRoundTrip == 0.007)
        // A PING sent while the pool held nothing: the path alone, the base at once.
        window.pathMeasured(0.150, now: now)
        #expect(window.baseRoundTrip == 0.150)
        _ = window.answered(latency: 0.151, load: window.size, sent: window.size, now: now)
        #expect(interval(&window, latency: 0.151, load: window.size, start: now).size == 3000)
        // A shorter one is any other sample: the least stays the base.
        window.pathMeasured(0.100, now: now + 1)
        #expect(window.baseRoundTrip == 0.100)
        window.pathMeasured(0.120, now: now + 2)
        #expect(window.baseRoundTrip == 0.120, "longer than the base: the path changed again")
    }

    @Test func boundsAreKeptConsistent() {
        let window = InFlightWindow(limits: .init(floor: 5000, ceiling: 300, baseConnections: 4, maxConnections: 1))
        #expect(window.size == 300)
        #expect(window.connections == 1)
    }
}
