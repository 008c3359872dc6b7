/// A notification the simulator accepted.
public struct APNSDelivery: Sendable, Equatable {
    public var token: String
    public var apnsID: String
    public var topic: String?
    public var pushType: String?
    /// The `apns-priority` header as sent (nil when absent, which APNs takes as 10).
    public var priority: String?
    public var payload: [UInt8]
    /// Milliseconds since the epoch.
    public var receivedAt: Int64
    /// The `apns-collapse-id` it carried.
    public var collapseID: String?
    /// How many notifications this token was sent in all (the delivery kept is the last).
    public var count: Int
    /// Whether every notification this token was sent carried one `apns-collapse-id` (none
    /// counts as different from any): then the device showed one copy, however many came.
    /// Kept by `DeliveryLog.record`.
    public var oneCollapseID: Bool

    public init(token: String, apnsID: String, topic: String?, pushType: String?, priority: String? = nil, payload: [UInt8],
                receivedAt: Int64, collapseID: String? = nil, count: Int = 1) {
        self.token = token
        self.apnsID = apnsID
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.payload = payload
        self.receivedAt = receivedAt
        self.collapseID = collapseID
        self.count = count
        oneCollapseID = collapseID != nil
    }
}

/// The last delivery per device token, for at most `capacity` tokens: when a new token
/// would exceed it, the token first seen longest ago is forgotten. Memory stays bounded
/// however many devices a benchmark addresses.
public struct DeliveryLog: Sendable {
    public let capacity: Int
    private var latest: [String: APNSDelivery] = [:]
    /// Tokens in the order first seen, used as a ring once full.
    private var order: [String] = []
    private var oldest = 0

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    public var count: Int { latest.count }

    public mutating func record(_ delivery: APNSDelivery) {
        guard capacity > 0 else { return }
        var delivery = delivery
        if let previous = latest[delivery.token] {
            delivery.count = previous.count + 1
            delivery.oneCollapseID = previous.oneCollapseID && delivery.collapseID == previous.collapseID
            latest[delivery.token] = delivery
            return
        }
        delivery.oneCollapseID = delivery.collapseID != nil
        latest[delivery.token] = delivery
        if order.count < capacity {
            order.append(delivery.token)
        } else {
            latest.removeValue(forKey: order[oldest])
            order[oldest] = delivery.token
            oldest = (oldest + 1) % capacity
        }
    }

    public func delivery(forToken token: String) -> APNSDelivery? {
        latest[token]
    }

    /// Every remembered delivery, most recently first seen token last.
    public var all: [APNSDelivery] {
        (order[oldest...] + order[..<oldest]).compactMap { latest[$0] }
    }
}
