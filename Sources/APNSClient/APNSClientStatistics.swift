import Synchronization

/// Counters of one client, for metrics and tests.
public struct APNSClientStatistics: Sendable, Hashable {
    public var accepted = 0
    public var rejected = 0
    public var failed = 0
    /// Requests sent again because their connection died or refused them.
    public var retried = 0
    public var connectionsOpened = 0
    /// Connections whose TLS handshake resumed an earlier session (of those opened).
    public var connectionsResumed = 0
    /// Connections up now (handshake done, not yet closed).
    public var connectionsOpen = 0
    public var connectionFailures = 0
    /// Streams open now, over all connections: requests on the wire waiting for an answer.
    public var streamsOpen = 0
    /// The most streams ever open at once on one connection.
    public var streamsHighWater = 0
    /// `send` calls waiting for an answer now.
    public var inFlight = 0
    /// The most `send` calls ever waiting for an answer at once.
    public var inFlightHighWater = 0
    /// `send` calls that may wait for an answer at once now (the in-flight window).
    public var window = 0
    /// The least round trip to the server lately (PING or answer), in milliseconds; 0 before any.
    public var baseRoundTripMilliseconds = 0.0
}

/// The live counters behind `APNSClientStatistics`, updated from the loop threads.
final class StatisticsCounters: Sendable {
    let accepted = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    let retried = Atomic<Int>(0)
    let connectionsOpened = Atomic<Int>(0)
    let connectionsResumed = Atomic<Int>(0)
    let connectionsOpen = Atomic<Int>(0)
    let connectionFailures = Atomic<Int>(0)
    let streamsOpen = Atomic<Int>(0)
    let streamsHighWater = Atomic<Int>(0)
    /// `baseRoundTripMilliseconds` in microseconds, as its pools last saw it.
    let baseRoundTripMicroseconds = Atomic<Int>(0)

    func count(_ answer: HTTP2Answer) {
        switch answer {
        case let .response(response) where response.status == 200: accepted.add(1, ordering: .relaxed)
        case .response: rejected.add(1, ordering: .relaxed)
        case .failed: failed.add(1, ordering: .relaxed)
        }
    }

    /// A stream opened on a connection that now has `open` streams.
    func streamOpened(connectionStreams open: Int) {
        streamsOpen.add(1, ordering: .relaxed)
        streamsHighWater.max(open, ordering: .relaxed)
    }

    func streamsEnded(_ count: Int) {
        streamsOpen.subtract(count, ordering: .relaxed)
    }

    func snapshot(inFlight: Int, inFlightHighWater: Int, window: Int) -> APNSClientStatistics {
        APNSClientStatistics(
            accepted: accepted.load(ordering: .relaxed), rejected: rejected.load(ordering: .relaxed),
            failed: failed.load(ordering: .relaxed), retried: retried.load(ordering: .relaxed),
            connectionsOpened: connectionsOpened.load(ordering: .relaxed),
            connectionsResumed: connectionsResumed.load(ordering: .relaxed), connectionsOpen: connectionsOpen.load(ordering: .relaxed),
            connectionFailures: connectionFailures.load(ordering: .relaxed),
            streamsOpen: streamsOpen.load(ordering: .relaxed), streamsHighWater: streamsHighWater.load(ordering: .relaxed),
            inFlight: inFlight, inFlightHighWater: inFlightHighWater, window: window,
            baseRoundTripMilliseconds: Double(baseRoundTripMicroseconds.load(ordering: .relaxed)) / 1000)
    }
}
