import Foundation
import RelayCore

/// What a broadcast channel keeps for devices that are offline when a message is sent;
/// chosen when the channel is created and never changed (Apple, "Sending channel management
/// requests to APNs").
public enum APNSMessageStoragePolicy: Int, Sendable, Hashable, CaseIterable {
    /// Nothing is stored: a higher publishing budget, for frequent updates (scores).
    /// Broadcasts to such a channel must carry `apns-expiration: 0`.
    case noMessageStored = 0
    /// The most recent message is stored for up to 8 hours, for infrequent updates (flights).
    case mostRecentMessageStored = 1
}

/// One request to APNs' channel-management service: `/1/apps/<bundle id>/channels` to
/// create (POST), read (GET) or delete (DELETE) a channel, `/1/apps/<bundle id>/all-channels`
/// (GET) to list them. The channel, when one is named, goes in `apns-channel-id`.
public struct APNSChannelRequest: Sendable, Hashable {
    public enum Operation: Sendable, Hashable {
        case create(APNSMessageStoragePolicy)
        case read(channelID: String)
        case delete(channelID: String)
        case list
    }

    /// The app's bundle id (no push-type suffix: APNs answers TopicDisallowed).
    public var bundleID: String
    public var operation: Operation
    /// `apns-request-id`, echoed by APNs (it makes one when none is sent).
    public var requestID: UUID

    public init(bundleID: String, operation: Operation, requestID: UUID = APNSNotification.makeID()) {
        self.bundleID = bundleID
        self.operation = operation
        self.requestID = requestID
    }

    public var method: StaticString {
        switch operation {
        case .create: "POST"
        case .read, .list: "GET"
        case .delete: "DELETE"
        }
    }

    public var path: String {
        switch operation {
        case .list: "/1/apps/\(bundleID)/all-channels"
        case .create, .read, .delete: "/1/apps/\(bundleID)/channels"
        }
    }

    /// The channel named in `apns-channel-id`, if the operation names one.
    public var channelID: String? {
        switch operation {
        case let .read(channelID), let .delete(channelID): channelID
        case .create, .list: nil
        }
    }

    /// `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}` for a create; empty otherwise.
    public var body: [UInt8] {
        guard case let .create(policy) = operation else { return [] }
        return Array("{\"message-storage-policy\":\(policy.rawValue),\"push-type\":\"LiveActivity\"}".utf8)
    }

    /// What APNs would refuse, checked before a round trip; nil when it can be sent.
    public func validate() -> APNSValidationError? {
        if bundleID.isEmpty { return .missingTopic }
        if let problem = APNSChannelRequest.pathProblem(bundleID) { return .badHeaderValue(name: ":path", problem: problem) }
        if let channelID, let problem = APNSChannelRequest.channelIDProblem(channelID) {
            return .badHeaderValue(name: "apns-channel-id", problem: problem)
        }
        return nil
    }

    /// Why `channelID` cannot be a channel id (base64, standard alphabet), or nil.
    public static func channelIDProblem(_ channelID: String) -> String? {
        if channelID.isEmpty { return "is empty" }
        if channelID.utf8.count > 1024 { return "is longer than 1024 bytes" }
        let base64 = channelID.utf8.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
        }
        return base64 ? nil : "is not base64"
    }

    /// A bundle id must stay one path segment.
    private static func pathProblem(_ bundleID: String) -> String? {
        bundleID.utf8.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "%") || $0 <= 0x20 || $0 >= 0x7F }
            ? "bundle id is not one path segment" : nil
    }
}

extension APNSChannelRequest: HTTP2Message {
    package func layOutFields(_ block: inout RequestHeaderBlock, authorization: [UInt8]?) {
        block.add(":path") { RequestHeaderBlock.append(path, to: &$0) }
        if let authorization { block.add("authorization", bytes: authorization) }
        block.add("apns-request-id") { APNSID.append(requestID, to: &$0) }
        block.neverIndexLast()
        if let channelID {
            block.add("apns-channel-id") { RequestHeaderBlock.append(channelID, to: &$0) }
            block.neverIndexLast()
        }
    }

    package var expiration: Int? { nil }
}
