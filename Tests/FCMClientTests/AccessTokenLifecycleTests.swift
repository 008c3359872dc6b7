import Foundation
import Testing
@testable import FCMClient

/// When the access token is fetched, reused, refreshed and dropped, with the time passed in.
@Suite struct AccessTokenLifecycleTests {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func oneFetchServesEveryoneUntilNearExpiry() {
        var lifecycle = AccessTokenLifecycle(refreshMargin: 300, failureHoldOff: 1)
        #expect(lifecycle.need(now: start) == (.wait, true))
        #expect(lifecycle.need(now: start) == (.wait, false), "one fetch at a time")
        lifecycle.fetched("t1", expiresIn: 3599, now: start)
        #expect(lifecycle.need(now: start.addingTimeInterval(10)) == (.use("t1"), false))
        #expect(lifecycle.need(now: start.addingTimeInterval(3000)) == (.use("t1"), false))
        // Within the margin: still used, and a fresh one fetched in the background, once.
        #expect(lifecycle.need(now: start.addingTimeInterval(3300)) == (.use("t1"), true))
        #expect(lifecycle.need(now: start.addingTimeInterval(3301)) == (.use("t1"), false))
        lifecycle.fetched("t2", expiresIn: 3599, now: start.addingTimeInterval(3302))
        #expect(lifecycle.need(now: start.addingTimeInterval(3400)) == (.use("t2"), false))
    }

    @Test func anExpiredTokenIsNeverUsed() {
        var lifecycle = AccessTokenLifecycle(refreshMargin: 0, failureHoldOff: 1)
        lifecycle.fetched("t1", expiresIn: 60, now: start)
        #expect(lifecycle.need(now: start.addingTimeInterval(60)) == (.wait, true))
    }

    @Test func aRejectedTokenIsDroppedUnlessAlreadyReplaced() {
        var lifecycle = AccessTokenLifecycle()
        lifecycle.fetched("t1", expiresIn: 3599, now: start)
        lifecycle.rejected("t0")
        #expect(lifecycle.need(now: start) == (.use("t1"), false))
        lifecycle.rejected("t1")
        #expect(lifecycle.need(now: start) == (.wait, true))
    }

    @Test func aFailedFetchFailsSendsForTheHoldOffThenIsTriedAgain() {
        var lifecycle = AccessTokenLifecycle(refreshMargin: 300, failureHoldOff: 1)
        _ = lifecycle.need(now: start)
        lifecycle.fetchFailed(reason: "token endpoint answered 503", broken: false, now: start)
        #expect(lifecycle.need(now: start.addingTimeInterval(0.5)) == (.fail(reason: "token endpoint answered 503", broken: false), false))
        #expect(lifecycle.need(now: start.addingTimeInterval(1)) == (.wait, true))
        lifecycle.fetchFailed(reason: "invalid_grant", broken: true, now: start.addingTimeInterval(1))
        #expect(lifecycle.need(now: start.addingTimeInterval(1.2)) == (.fail(reason: "invalid_grant", broken: true), false))
    }
}
