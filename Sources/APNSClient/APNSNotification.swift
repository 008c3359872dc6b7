import Foundation
import RelayCore

/// One notification to one device, as sent to `POST /3/device/<token>`.
///
/// `apnsID` is chosen once, when the notification is made, and kept across every retry so
/// APNs and our logs can tie the attempts together.
public struct APNSNotification: Sendable, Hashable {
    /// The device token, as lowercase or uppercase hex.
    public var deviceToken: String
    /// The `apns-topic`: the bundle id, with the suffix some push types need.
    public var topic: String
    public var pushType: APNSPushType
    public var priority: APNSPriority
    /// Unix seconds after which APNs stops trying; 0 means deliver once, nil sends no header.
    public var expiration: Int?
    /// `apns-collapse-id`: at most 64 bytes of UTF-8, a valid header value. A re-send after
    /// a connection died under the notification carries it unchanged: give one when a
    /// duplicate must replace the first copy on the device.
    public var collapseID: String?
    public var apnsID: UUID
    /// The JSON body.
    public var payload: [UInt8]

    public init(
        deviceToken: String, topic: String, pushType: APNSPushType = .alert, priority: APNSPriority = .immediate,
        expiration: Int? = nil, collapseID: String? = nil, apnsID: UUID = APNSNotification.makeID(), payload: [UInt8]
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.payload = payload
    }

    /// A fresh `apns-id`: a version-4-shaped UUID, unique within the process and made
    /// without a system call (the default for `apnsID`).
    public static func makeID() -> UUID { APNSID.make() }

    /// The request path, `/3/device/<token>`.
    public var path: String { "/3/device/\(deviceToken)" }

    /// The request headers besides the pseudo-headers and `authorization`, in sending order.
    public var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("apns-topic", topic),
            ("apns-push-type", pushType.rawValue),
            ("apns-priority", String(priority.rawValue)),
            ("apns-id", apnsID.uuidString.lowercased()),
        ]
        if let expiration { headers.append(("apns-expiration", String(expiration))) }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        return headers
    }

    /// Checks what APNs would reject, so a bad notification never costs a round trip.
    ///
    /// - Returns: the first problem found, or nil when the notification can be sent.
    public func validate() -> APNSValidationError? {
        var token = deviceToken
        let isHex = token.withUTF8 { bytes in
            !bytes.isEmpty && bytes.count % 2 == 0 && bytes.allSatisfy(\.isHexDigit)
        }
        if !isHex { return .badDeviceToken }
        if topic.isEmpty { return .missingTopic }
        if let problem = HTTPFieldValue.problem(topic) { return .badHeaderValue(name: "apns-topic", problem: problem) }
        if payload.isEmpty { return .payloadEmpty }
        if payload.count > pushType.maxPayloadSize {
            return .payloadTooLarge(size: payload.count, limit: pushType.maxPayloadSize)
        }
        if pushType == .background && priority != .powerConsiderate { return .backgroundNeedsPriority5 }
        if let collapseID, collapseID.utf8.count > 64 { return .collapseIDTooLong }
        if let collapseID, let problem = HTTPFieldValue.problem(collapseID) {
            return .badHeaderValue(name: "apns-collapse-id", problem: problem)
        }
        if let expiration, expiration < 0 { return .badExpiration }
        return nil
    }
}

/// Why a notification was refused before sending.
public enum APNSValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    case badDeviceToken
    case missingTopic
    case payloadEmpty
    case payloadTooLarge(size: Int, limit: Int)
    case backgroundNeedsPriority5
    case collapseIDTooLong
    /// A header value nghttp2 or APNs would refuse (`HTTPFieldValue`).
    case badHeaderValue(name: String, problem: String)
    case badExpiration

    public var description: String {
        switch self {
        case .badDeviceToken: "device token is not hex"
        case .missingTopic: "topic is empty"
        case .payloadEmpty: "payload is empty"
        case let .payloadTooLarge(size, limit): "payload is \(size) bytes, the limit is \(limit)"
        case .backgroundNeedsPriority5: "background notifications need priority 5"
        case .collapseIDTooLong: "collapse id is longer than 64 bytes"
        case let .badHeaderValue(name, problem): "\(name) \(problem)"
        case .badExpiration: "expiration is negative"
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
