import Foundation

/// The time source of the client, injected so token expiry, queue timeouts and backoff are
/// tested without waiting: the wall clock (`now`) for provider tokens and APNs expirations,
/// a monotonic instant for intervals.
public protocol APNSClock: Sendable {
    var now: Date { get }
    var instant: ContinuousClock.Instant { get }
}

/// The wall clock and the process's monotonic clock.
public struct SystemClock: APNSClock {
    public init() {}
    public var now: Date { Date() }
    public var instant: ContinuousClock.Instant { .now }
}
