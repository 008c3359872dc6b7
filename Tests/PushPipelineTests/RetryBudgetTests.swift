import Testing
@testable import PushPipeline

/// The per-app retry budget (issue 22 §4), without I/O: the clock is a value.
@Suite struct RetryBudgetTests {
    let start = ContinuousClock.now

    @Test func aBurstGoesAtOnceThenTheRatePaces() {
        var budget = RetryBudget(rate: 10, burst: 3)
        #expect((0..<3).map { _ in budget.take(app: 1, now: start) } == [.zero, .zero, .zero])
        // One round every 100 ms after the burst, each waiting behind the one before.
        #expect(budget.take(app: 1, now: start) == .milliseconds(100))
        #expect(budget.take(app: 1, now: start) == .milliseconds(200))
        // Time refills it: 300 ms on, one more may go at once, the next waits 100 ms.
        #expect(budget.take(app: 1, now: start + .milliseconds(300)) == .zero)
        #expect(budget.take(app: 1, now: start + .milliseconds(300)) == .milliseconds(100))
        // After a quiet spell the whole burst is back.
        let later = start + .seconds(10)
        #expect((0..<3).map { _ in budget.take(app: 1, now: later) } == [.zero, .zero, .zero])
    }

    /// One app spending far beyond its budget leaves another app's whole.
    @Test func oneAppsRetriesNeverSpendAnothersBudget() {
        var budget = RetryBudget(rate: 10, burst: 2)
        for _ in 0..<300 { _ = budget.take(app: 1, now: start) }
        #expect(budget.take(app: 1, now: start) == .seconds(30) - .milliseconds(100))
        #expect(budget.take(app: 2, now: start) == .zero)
        #expect(budget.take(app: 2, now: start) == .zero)
        #expect(budget.take(app: 2, now: start) == .milliseconds(100))
    }

    /// Memory follows the apps retrying, not every app that ever did.
    @Test func appsWhoseBudgetIsWholeAgainAreForgotten() {
        var budget = RetryBudget(rate: 10, burst: 1)
        for app in 0..<5_000 { _ = budget.take(app: Int64(app), now: start) }
        #expect(budget.remembered == 5_000, "all still owe a round")
        // A second on, those 5,000 are whole again: the next sweep (at twice the count kept
        // at the last one) forgets them.
        let later = start + .seconds(1)
        for app in 10_000..<14_000 { _ = budget.take(app: Int64(app), now: later) }
        #expect(budget.remembered == 4_000)
    }
}
