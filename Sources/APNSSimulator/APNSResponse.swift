import APNSClient

/// What the simulator answers one request with.
public struct APNSResponse: Sendable, Equatable {
    /// `nil` for 200.
    public var reason: APNSReason?
    /// Milliseconds since the epoch; only for 410, when APNs learnt the token was dead.
    public var timestamp: Int64?

    public static let accepted = APNSResponse(reason: nil, timestamp: nil)

    public init(reason: APNSReason?, timestamp: Int64? = nil) {
        self.reason = reason
        self.timestamp = timestamp
    }

    public var status: Int { reason?.status ?? 200 }

    /// `{"reason":"…"}` (plus `"timestamp"` for 410), or empty for 200.
    public var body: [UInt8] {
        guard let reason else { return [] }
        if let timestamp {
            return Array("{\"reason\":\"\(reason.description)\",\"timestamp\":\(timestamp)}".utf8)
        }
        return Array("{\"reason\":\"\(reason.description)\"}".utf8)
    }
}
