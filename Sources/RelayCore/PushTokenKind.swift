/// The kinds of token an iOS device may hold beside its notification token, each taking only
/// its own push type: APNs answers 400 DeviceTokenNotForTopic when a token gets another kind
/// of push (docs/apns.md, "Push types, topics and priorities").
///
/// - `voip`: PushKit's VoIP token (`PKPushRegistry`, `.voIP`);
/// - `location`: the location push service extension's (`CLLocationManager.startMonitoringLocationPushes`);
/// - `complication`: PushKit's complication token (watchOS);
/// - `fileprovider`: PushKit's File Provider token (`.fileProvider`);
/// - `pushtotalk`: Push to Talk's ephemeral token (`PTChannelManagerDelegate`).
///
/// The raw value is the `token_type` a registration gives, the `apns-push-type` the token
/// takes, and the store's name for the kind (`device_push_tokens.kind`, `push_chunks.platform`).
public enum PushTokenKind: String, Sendable, Hashable, CaseIterable {
    case voip, location, complication, fileprovider, pushtotalk

    /// In sentences: "a VoIP push", "the devices' Push to Talk tokens".
    public var displayName: String {
        switch self {
        case .voip: "VoIP"
        case .location: "location"
        case .complication: "complication"
        case .fileprovider: "File Provider"
        case .pushtotalk: "Push to Talk"
        }
    }
}
