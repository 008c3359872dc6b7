import APNSClient

/// The worker's time, injected so expiry and retry are tested without waiting: the
/// `APNSClock`'s wall clock (messages expire by it) and monotonic instant (the retry budget,
/// the reclaim cadence), and the waits between a chunk's rounds.
public protocol PipelineClock: APNSClock {
    /// Returns once `duration` has passed on this clock; throws when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

extension SystemClock: PipelineClock {
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
