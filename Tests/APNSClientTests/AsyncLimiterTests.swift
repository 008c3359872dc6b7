import Synchronization
import Testing
@testable import APNSClient

/// What the waiting tasks got, read by the test.
final class Outcomes: Sendable {
    let values = Mutex<[Int]>([])
    func append(_ value: Int) { values.withLock { $0.append(value) } }
    var all: [Int] { values.withLock { $0 } }
}

/// The in-flight bound: slots taken one by one or in chunks, handed on in order.
@Suite struct AsyncLimiterTests {
    @Test func aChunkTakesWhatIsFreeUpToItsMaximum() async {
        let limiter = AsyncLimiter(limit: 10)
        #expect(await limiter.acquire(upTo: 4, atLeast: 1) == 4)
        #expect(await limiter.acquire(upTo: 100, atLeast: 2) == 6, "only 6 were left")
        #expect(limiter.usage.inUse == 10)
        limiter.release(10)
        #expect(limiter.usage == (0, 10))
    }

    @Test func aWaiterResumesOnlyOnceItsMinimumIsFree() async throws {
        let limiter = AsyncLimiter(limit: 8)
        _ = await limiter.acquire(upTo: 8, atLeast: 8)
        let granted = Outcomes()
        let waiter = Task { granted.append(await limiter.acquire(upTo: 8, atLeast: 4)) }
        try await pollUntil { limiter.waiting == 1 }
        limiter.release(3)
        try await Task.sleep(for: .milliseconds(50))
        #expect(granted.all.isEmpty, "3 free slots are fewer than its minimum of 4")
        limiter.release(2)
        await waiter.value
        #expect(granted.all == [5], "it took every free slot, up to its maximum")
        #expect(limiter.usage.inUse == 8)
    }

    @Test func waitersAreServedInOrder() async throws {
        let limiter = AsyncLimiter(limit: 2)
        await limiter.acquire()
        await limiter.acquire()
        let order = Outcomes()
        var tasks: [Task<Void, Never>] = []
        for index in 0..<3 {
            tasks.append(Task {
                await limiter.acquire()
                order.append(index)
            })
            try await pollUntil { limiter.waiting == index + 1 }
        }
        // One slot at a time, so what each release wakes is seen before the next: resumed
        // tasks run concurrently, and three releases at once could record in any order.
        for served in 1...3 {
            limiter.release()
            try await pollUntil { order.all.count == served }
        }
        for task in tasks { await task.value }
        #expect(order.all == [0, 1, 2])
        #expect(limiter.usage.inUse == 2)
    }

    private func pollUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("condition not met") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
