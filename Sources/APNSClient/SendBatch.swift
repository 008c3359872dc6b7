import Synchronization

/// The answers of one `send(messages:)`, filled in by the loop threads and handed
/// to the caller when the last one arrives.
///
/// Thread rule: each slot is written once, by whichever thread finishes that request;
/// slots are distinct, so writers never touch the same memory. `remaining` (acquire and
/// release on every decrement) orders every write before the caller reads the results.
/// Each finished request gives its in-flight slot back to the limiter.
final class SendBatch: @unchecked Sendable {
    private let results: UnsafeMutableBufferPointer<HTTP2Answer>
    /// Unfinished requests, plus one held by the submitter until it waits.
    private let remaining: Atomic<Int>
    private let limiter: AsyncLimiter
    private var continuation: CheckedContinuation<[HTTP2Answer], Never>?

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

    /// A request handed to a pool came back.
    func finish(_ index: Int, _ result: HTTP2Answer) {
        results[index] = result
        limiter.release()
        countDown()
    }

    /// Suspends until every result is in; call once, after handing every request over.
    func wait() async -> [HTTP2Answer] {
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
