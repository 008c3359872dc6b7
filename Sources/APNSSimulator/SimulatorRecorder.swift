import APNSClient
import Foundation
import RelayCore
import Synchronization

/// Counters the simulator keeps, as `GET /stats` reports them.
public struct APNSSimulatorStats: Sendable, Equatable, Encodable {
    /// Notifications answered 200.
    public var accepted = 0
    /// Requests answered with an error, by reason (scripted failures included).
    public var rejected: [String: Int] = [:]
    /// TCP connections accepted since start (or reset).
    public var connections = 0
    /// Connections open now; not cleared by a reset.
    public var openConnections = 0
    /// Connections closed on arrival because `maxConnections` were open.
    public var refusedConnections = 0
    /// HTTP/2 streams (requests) begun.
    public var streams = 0
    /// GOAWAY frames sent by `goawayAfter`.
    public var goaways = 0
    /// Connections reset by `resetAfter`.
    public var resets = 0
    /// Connections closed before their TLS handshake by `refuseTLSSeconds`.
    public var refusedHandshakes = 0

    public init() {}

    public var rejectedTotal: Int { rejected.values.reduce(0, +) }

    private enum CodingKeys: String, CodingKey {
        case accepted, rejected, rejectedTotal = "rejected_total", connections, openConnections = "open_connections"
        case refusedConnections = "refused_connections", streams, goaways, resets, refusedHandshakes = "refused_handshakes"
    }

    /// `{"accepted":…,"rejected":{…},"rejected_total":…,"connections":…,"open_connections":…,
    /// "refused_connections":…,"streams":…,"goaways":…,"resets":…,"refused_handshakes":…}`
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accepted, forKey: .accepted)
        try container.encode(rejected, forKey: .rejected)
        try container.encode(rejectedTotal, forKey: .rejectedTotal)
        try container.encode(connections, forKey: .connections)
        try container.encode(openConnections, forKey: .openConnections)
        try container.encode(refusedConnections, forKey: .refusedConnections)
        try container.encode(streams, forKey: .streams)
        try container.encode(goaways, forKey: .goaways)
        try container.encode(resets, forKey: .resets)
        try container.encode(refusedHandshakes, forKey: .refusedHandshakes)
    }
}

/// What every event loop reports to: counters and the delivery log, behind one mutex
/// (held for a few dictionary operations per request).
public final class SimulatorRecorder: Sendable {
    private struct State {
        var stats = APNSSimulatorStats()
        var log: DeliveryLog
    }

    private let state: Mutex<State>

    public init(maxRecordedTokens: Int) {
        state = Mutex(State(log: DeliveryLog(capacity: maxRecordedTokens)))
    }

    public var stats: APNSSimulatorStats { state.withLock { $0.stats } }

    public func deliveries(token: String? = nil) -> [APNSDelivery] {
        state.withLock { state in
            guard let token else { return state.log.all }
            return state.log.delivery(forToken: token.lowercased()).map { [$0] }
                ?? state.log.delivery(forToken: token).map { [$0] } ?? []
        }
    }

    /// Clears counters and deliveries; open connections stay counted.
    public func reset() {
        state.withLock { state in
            let open = state.stats.openConnections
            state.stats = APNSSimulatorStats()
            state.stats.openConnections = open
            state.log = DeliveryLog(capacity: state.log.capacity)
        }
    }

    /// Counts a new connection if fewer than `limit` are open; `false` (counted as refused)
    /// otherwise.
    func connectionOpened(limit: Int) -> Bool {
        state.withLock { state in
            guard state.stats.openConnections < limit else {
                state.stats.refusedConnections += 1
                return false
            }
            state.stats.connections += 1
            state.stats.openConnections += 1
            return true
        }
    }

    func connectionClosed() {
        state.withLock { $0.stats.openConnections -= 1 }
    }

    func streamBegan() {
        state.withLock { $0.stats.streams += 1 }
    }

    func goawaySent() {
        state.withLock { $0.stats.goaways += 1 }
    }

    func connectionReset() {
        state.withLock { $0.stats.resets += 1 }
    }

    func handshakeRefused() {
        state.withLock { $0.stats.refusedHandshakes += 1 }
    }

    func accepted(_ delivery: APNSDelivery) {
        state.withLock { state in
            state.stats.accepted += 1
            state.log.record(delivery)
        }
    }

    func rejected(_ reason: String) {
        state.withLock { $0.stats.rejected[reason, default: 0] += 1 }
    }

    /// `{"count":N,"deliveries":[{"token":…,"apns_id":…,"topic":…,"push_type":…,"priority":…,"collapse_id":…,"count":…,"one_collapse_id":…,"received_at":…,"payload":{…}}]}`
    /// (`count` per delivery: how many times that token was sent to; the one shown is the
    /// last; `one_collapse_id`: whether all of them carried the same collapse id).
    public func deliveriesJSON(token: String?) -> [UInt8] {
        let items = deliveries(token: token).map(DeliveriesAnswer.Item.init)
        // Strings, integers and parsed JSON always encode.
        return (try? ControlServer.encoded(DeliveriesAnswer(count: items.count, deliveries: items))) ?? Array("{}".utf8)
    }
}

/// The answer of `GET /deliveries`.
private struct DeliveriesAnswer: Encodable {
    struct Item: Encodable {
        var token: String
        var apnsID: String
        var topic: String?
        var pushType: String?
        var priority: String?
        var collapseID: String?
        var count: Int
        var oneCollapseID: Bool
        var receivedAt: Int64
        /// The payload as JSON, or as text when it is not JSON.
        var payload: JSONValue

        init(_ delivery: APNSDelivery) {
            token = delivery.token
            apnsID = delivery.apnsID
            topic = delivery.topic
            pushType = delivery.pushType
            priority = delivery.priority
            collapseID = delivery.collapseID
            count = delivery.count
            oneCollapseID = delivery.oneCollapseID
            receivedAt = delivery.receivedAt
            payload = (try? JSONValue.parse(delivery.payload)) ?? .string(String(decoding: delivery.payload, as: UTF8.self))
        }

        enum CodingKeys: String, CodingKey {
            case token, apnsID = "apns_id", topic, pushType = "push_type", priority, collapseID = "collapse_id", count,
                 oneCollapseID = "one_collapse_id", receivedAt = "received_at", payload
        }
    }

    var count: Int
    var deliveries: [Item]
}
