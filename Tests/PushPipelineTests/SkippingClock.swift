import Foundation
import PushPipeline
import Synchronization

/// A worker's clock whose waits take no time: each `sleep` moves the clock forward by its
/// duration instead. Between waits it runs at the real pace, so a backoff or an expiration
/// costs a test nothing while the database's clock (leases, `available_at`) still moves.
final class SkippingClock: PipelineClock {
    private let skipped = Mutex(Duration.zero)

    var now: Date {
        let skipped = skipped.withLock { $0 }
        return Date() + Double(skipped.components.seconds) + Double(skipped.components.attoseconds) / 1e18
    }

    var instant: ContinuousClock.Instant { .now + skipped.withLock { $0 } }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        skipped.withLock { $0 += duration }
        await Task.yield()
    }
}
