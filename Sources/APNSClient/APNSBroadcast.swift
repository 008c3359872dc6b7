import Foundation
import RelayCore

/// One Live Activity message to every device subscribed to a broadcast channel:
/// `POST /4/broadcasts/apps/<bundle id>` with `apns-channel-id`, no device token (Apple,
/// "Sending broadcast push notification requests to APNs"). Sent on the APNs endpoint
/// (`api.push.apple.com`), not the channel-management one.
public struct APNSBroadcast: Sendable, Hashable {
    /// The bundle id, without the `.push-type.liveactivity` suffix (APNs: TopicDisallowed).
    public var bundleID: String
    public var channelID: String
    public var priority: APNSPriority
    /// `apns-expiration`, Unix seconds until which APNs may store the message (a channel with
    /// `mostRecentMessageStored` only); nil sends 0: delivered once, stored nowhere, the only
    /// value a `noMessageStored` channel takes. The pools do not send it after that time.
    public var expiration: Int?
    /// `apns-request-id`, echoed by APNs and kept across retries.
    public var requestID: UUID
    /// The JSON body: `aps` with `timestamp`, `event`, `content-state`, ….
    public var payload: [UInt8]

    /// The largest broadcast body APNs takes: 5 KB.
    public static let maxPayloadSize = 5120

    public init(bundleID: String, channelID: String, priority: APNSPriority = .powerConsiderate, expiration: Int? = nil,
                requestID: UUID = APNSNotification.makeID(), payload: [UInt8]) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.priority = priority
        self.expiration = expiration
        self.requestID = requestID
        self.payload = payload
    }

    public var path: String { "/4/broadcasts/apps/\(bundleID)" }

    /// What APNs would refuse, checked before a round trip; nil when it can be sent.
    public func validate() -> APNSValidationError? {
        if let problem = APNSChannelRequest(bundleID: bundleID, operation: .read(channelID: channelID)).validate() { return problem }
        if payload.isEmpty { return .payloadEmpty }
        if payload.count > Self.maxPayloadSize { return .payloadTooLarge(size: payload.count, limit: Self.maxPayloadSize) }
        if let expiration, expiration < 0 { return .badExpiration }
        return nil
    }
}

extension APNSBroadcast: HTTP2Message {
    package func layOutFields(_ block: inout RequestHeaderBlock, authorization: [UInt8]?) {
        block.add(":path") { RequestHeaderBlock.append(path, to: &$0) }
        if let authorization { block.add("authorization", bytes: authorization) }
        block.add("apns-push-type") { RequestHeaderBlock.append(APNSPushType.liveactivity.rawValue, to: &$0) }
        block.add("apns-priority") { RequestHeaderBlock.appendDecimal(priority.rawValue, to: &$0) }
        block.add("apns-expiration") { RequestHeaderBlock.appendDecimal(expiration ?? 0, to: &$0) }
        block.add("apns-channel-id") { RequestHeaderBlock.append(channelID, to: &$0) }
        block.add("apns-request-id") { APNSID.append(requestID, to: &$0) }
        block.neverIndexLast()
    }

    package var body: [UInt8] { payload }
}
