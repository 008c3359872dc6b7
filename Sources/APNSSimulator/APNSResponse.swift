import APNSClient

/// What the simulator answers one request with.
public struct APNSResponse: Sendable, Equatable {
    /// `nil` for 200.
    public var reason: APNSReason?
    /// Milliseconds since the epoch; only for 410, when APNs learnt the token was dead.
    public var timestamp: Int64?
    /// The status and body of a success (channel management answers 201, 204, or 200 with JSON).
    public var successStatus = 200
    public var successBody: [UInt8] = []
    /// `apns-channel-id` on the answer (a created channel).
    public var channelID: String?

    public static let accepted = APNSResponse(reason: nil, timestamp: nil)

    public init(reason: APNSReason?, timestamp: Int64? = nil) {
        self.reason = reason
        self.timestamp = timestamp
    }

    /// A success other than a bare 200.
    public init(successStatus: Int, body: [UInt8] = [], channelID: String? = nil) {
        self.successStatus = successStatus
        successBody = body
        self.channelID = channelID
    }

    public var status: Int { reason?.status ?? successStatus }

    /// `{"reason":"…"}` (plus `"timestamp"` for 410), or the success body.
    public var body: [UInt8] {
        guard let reason else { return successBody }
        if let timestamp {
            return Array("{\"reason\":\"\(reason.description)\",\"timestamp\":\(timestamp)}".utf8)
        }
        return Array("{\"reason\":\"\(reason.description)\"}".utf8)
    }
}
