import APNSClient
import Foundation

/// The worker's time, injected so expiry and retry are tested without waiting: the wall
/// clock messages expire by (`APNSClock`'s `now`), a monotonic instant for intervals (the
/// retry budget, the reclaim cadence), and the waits between a chunk's rounds.
public protocol PipelineClock: APNSClock {
    var instant: ContinuousClock.Instant { get }
    /// Returns once `duration` has passed on this clock; throws when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

extension SystemClock: PipelineClock {
    public var instant: ContinuousClock.Instant { .now }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
