import RelayCore

/// `notification.ios.push_type`: the `apns-push-type` a push is sent with, and APNs' rules for
/// each (Apple, "Sending notification requests to APNs"; docs/apns.md quotes them).
///
/// Absent, the push is an `alert` when it shows something and a `background` push when it
/// only carries `content-available`, as before. `liveactivity` and `mdm` are not push types a
/// push body asks for (Live Activities get their own API).
public enum IOSPushType: String, Sendable, Hashable, CaseIterable {
    case alert, background, voip, location, complication, fileprovider, pushtotalk

    /// What `apns-topic` adds to the app's bundle id.
    public var topicSuffix: String {
        switch self {
        case .alert, .background: ""
        case .voip: ".voip"
        case .location: ".location-query"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .pushtotalk: ".voip-ptt"
        }
    }

    /// The largest payload APNs takes, in bytes: 5 KB for VoIP, 4 KB for the rest.
    public var payloadBytes: Int { self == .voip ? 5120 : 4096 }

    /// The `apns-priority` values this push type may use, its default first: background
    /// pushes only 5 ("using priority 10 is an error"), Push to Talk only 10, 1 (power first,
    /// never wakes the device) only for alerts.
    public var priorities: [Int] {
        switch self {
        case .alert: [10, 5, 1]
        case .background: [5]
        case .pushtotalk: [10]
        case .voip, .location, .complication, .fileprovider: [10, 5]
        }
    }

    /// False for the push types that wake an extension or the app without showing anything:
    /// an alert, sound or badge is refused for them.
    public var mayShow: Bool {
        switch self {
        case .alert, .voip, .complication, .pushtotalk: true
        case .background, .location, .fileprovider: false
        }
    }

    /// The kind of token the push type goes to (PushKit, the location push service extension,
    /// Push to Talk's channel); nil for alert and background pushes, which go to the app's
    /// notification token. APNs answers DeviceTokenNotForTopic when one is sent to another kind.
    public var tokenKind: PushTokenKind? { PushTokenKind(rawValue: rawValue) }

    static func parse(_ reader: JSONObjectReader, key: String) throws(JPushError) -> IOSPushType? {
        guard let text = try reader.optionalString(key) else { return nil }
        guard let type = IOSPushType(rawValue: text) else {
            let known = allCases.map(\.rawValue).joined(separator: ", ")
            throw JPushError.illegalValue("\(reader.name(key)) must be one of \(known), got \(InputEcho.quoted(text))")
        }
        return type
    }
}
