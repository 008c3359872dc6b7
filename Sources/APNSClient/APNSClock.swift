import Foundation

/// The time source of the client, injected so token expiry is tested without waiting.
public protocol APNSClock: Sendable {
    var now: Date { get }
}

/// The wall clock.
public struct SystemClock: APNSClock {
    public init() {}
    public var now: Date { Date() }
}
