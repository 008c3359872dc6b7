import Testing
@testable import APNSClient

/// `ConnectionBudget`: the process's bound on APNs connections and the fair share among the
/// pools (apps) that want them, as requests, closes and idle reports in and decisions out.
@Suite struct ConnectionBudgetTests {
    @Test func belowTheBoundEveryRequestIsGranted() {
        var budget = ConnectionBudget(limit: 3)
        #expect(budget.request(1) == .granted)
        #expect(budget.request(1) == .granted)
        #expect(budget.request(2) == .granted)
        #expect(budget.total == 3 && budget.held == [1: 2, 2: 1])
    }

    @Test func atTheBoundAFreedPlaceGoesToTheFirstWaiter() {
        var budget = ConnectionBudget(limit: 2)
        _ = budget.request(1)
        _ = budget.request(2)
        #expect(budget.request(3) == .waiting(reclaim: nil), "nobody holds more than the fair share of 1, nor an idle one")
        #expect(budget.request(4) == .waiting(reclaim: nil))
        #expect(budget.waiters == [3, 4])
        #expect(budget.release(1) == 3)
        #expect(budget.held == [2: 1, 3: 1] && budget.total == 2)
        #expect(budget.release(2) == 4)
        #expect(budget.release(3) == nil)
        #expect(budget.total == 1)
    }

    @Test func anAppAboveItsFairShareGivesBackAnIdleConnectionFirst() {
        var budget = ConnectionBudget(limit: 4)
        for _ in 0..<3 { _ = budget.request(1) }
        _ = budget.request(2)
        #expect(budget.reportIdle(1, count: 1) == nil, "nobody waits")
        // Three pools want connections: a share of 4 / 3 = 1 each; pool 1 holds 3, one idle.
        #expect(budget.request(3) == .waiting(reclaim: .init(owner: 1, idleOnly: true)))
        #expect(budget.release(1) == 3, "the closed connection's place goes to the asker")
        #expect(budget.held == [1: 2, 2: 1, 3: 1])
    }

    @Test func anAppBelowItsShareMakesABusyAppAboveItDrainOne() {
        var budget = ConnectionBudget(limit: 4)
        for _ in 0..<4 { _ = budget.request(1) }
        // Pool 1 is busy (nothing idle) and holds all 4: pool 2 is owed 2.
        #expect(budget.request(2) == .waiting(reclaim: .init(owner: 1, idleOnly: false)))
        // One reclaim on the way for the one waiter: asking again asks nobody else.
        #expect(budget.request(2) == .waiting(reclaim: nil))
        #expect(budget.release(1) == 2)
    }

    @Test func aNewAppGetsTheIdleConnectionOfAnAppAtItsShare() {
        var budget = ConnectionBudget(limit: 2)
        _ = budget.request(1)
        _ = budget.request(2)
        _ = budget.reportIdle(2, count: 1)
        // Each holds its share of 1, but pool 3 holds none and pool 2's connection is idle.
        #expect(budget.request(3) == .waiting(reclaim: .init(owner: 2, idleOnly: true)))
        budget.reclaimDeclined(2)  // it became busy meanwhile
        #expect(budget.request(3) == .waiting(reclaim: nil), "no idle connection left to ask for")
    }

    @Test func aConnectionBecomingIdleIsAskedBackForTheFirstWaiter() {
        var budget = ConnectionBudget(limit: 1)
        _ = budget.request(1)
        #expect(budget.request(2) == .waiting(reclaim: nil), "pool 1's one connection is busy")
        #expect(budget.reportIdle(1, count: 1) == .init(owner: 1, idleOnly: true))
        #expect(budget.reportIdle(1, count: 1) == nil, "already asked")
        #expect(budget.release(1) == 2)
    }

    @Test func aPoolThatLeavesFreesItsPlacesForTheWaiters() {
        var budget = ConnectionBudget(limit: 2)
        _ = budget.request(1)
        _ = budget.request(1)
        _ = budget.request(2)
        _ = budget.request(3)
        #expect(budget.waiters == [2, 3])
        #expect(budget.remove(1) == [2, 3])
        #expect(budget.held == [2: 1, 3: 1] && budget.total == 2 && budget.waiters.isEmpty)
        #expect(budget.release(1) == nil, "a pool that left has nothing to release")
    }

    @Test func theFairShareDividesTheBoundAmongThePoolsHoldingOrWaiting() {
        var budget = ConnectionBudget(limit: 10)
        #expect(budget.fairShare == 10)
        for owner in 1...10 { _ = budget.request(owner) }
        #expect(budget.fairShare == 1)
        _ = budget.request(11)
        #expect(budget.fairShare == 1, "never below one")
    }
}
