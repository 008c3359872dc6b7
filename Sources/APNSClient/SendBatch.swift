import Synchronization

/// The results of one `send(_ notifications:)`, filled in by the loop threads and handed
/// to the caller when the last one arrives.
///
/// Thread rule: each slot is written once, by whichever thread finishes that request;
/// slots are distinct, so writers never touch the same memory. `remaining` (acquire and
/// release on every decrement) orders every write before the caller reads the results.
/// Each finished request gives its in-flight slot back to the limiter.
final class SendBatch: @unchecked Sendable {
    private let results: UnsafeMutableBufferPointer<APNSResult>
    /// Unfinished requests, plus one held by the submitter until it waits.
    private let remaining: Atomic<Int>
    private let limiter: AsyncLimiter
    private var continuation: CheckedContinuation<[APNSResult], Never>?

    init(count: Int, limiter: AsyncLimiter) {
        results = .allocate(capacity: count)
        results.initialize(repeating: .failed(.shutdown))
        remaining = Atomic(count + 1)
        self.limiter = limiter
    }

    deinit {
        results.deinitialize()
        results.deallocate()
    }

    /// A result that never took an in-flight slot (refused before sending).
    func finishUnsent(_ index: Int, _ result: APNSResult) {
        results[index] = result
        countDown()
    }

    /// A request handed to a pool came back.
    func finish(_ index: Int, _ result: APNSResult) {
        results[index] = result
        limiter.release()
        countDown()
    }

    /// Suspends until every result is in; call once, after handing every request over.
    func wait() async -> [APNSResult] {
        await withCheckedContinuation { continuation in
            self.continuation = continuation
            countDown()
        }
    }

    private func countDown() {
        guard remaining.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
        continuation?.resume(returning: Array(results))
        continuation = nil
    }
}
