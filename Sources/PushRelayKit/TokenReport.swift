/// What the phone tells the relay about its tokens beyond the notification token: Live
/// Activity tokens and states (ActivityKit) and the tokens of other push types (PushKit, Core
/// Location, Push to Talk). `TokenOutbox` decides what to send; `PushRelayDeviceClient.report`
/// sends one with the device secret.
public enum TokenReport: Sendable, Hashable {
    /// `Activity<Attributes>.pushToStartTokenUpdates` (iOS 17.2+): starts an activity of that
    /// attributes type (the type's name, as APNs' `attributes-type` gives it).
    case startToken(attributesType: String, token: String)
    /// An activity's `pushTokenUpdates`: updates and ends that activity; rotates.
    case activityToken(activityID: String, token: String)
    /// An activity's `activityStateUpdates`: the relay stops pushing to ended ones.
    case activityState(activityID: String, state: LiveActivityState)
    /// A token of another kind, kept beside the notification token.
    case deviceToken(PushTokenType, token: String)

    /// What a newer report replaces: one start token per attributes type, one update token
    /// and one state per activity, one token per kind.
    public enum Key: Sendable, Hashable {
        case startToken(String), activityToken(String), activityState(String), deviceToken(PushTokenType)
    }

    public var key: Key {
        switch self {
        case .startToken(let type, _): .startToken(type)
        case .activityToken(let id, _): .activityToken(id)
        case .activityState(let id, _): .activityState(id)
        case .deviceToken(let type, _): .deviceToken(type)
        }
    }
}

/// An activity's state as the relay takes it (`ActivityState`): `ended` and `dismissed` are
/// final, so the relay pushes nothing more to it and its tokens stop being reported.
public enum LiveActivityState: String, Sendable, Hashable, Codable, CaseIterable {
    case active, ended, dismissed, stale

    public var isFinal: Bool { self == .ended || self == .dismissed }
}

/// The kinds of token a device registers beside its notification token, as
/// `PATCH /client/v1/devices/{registration_id}` names them (`token_type`): each takes only
/// pushes of its own type (docs/apns.md, "The push types with tokens of their own").
public enum PushTokenType: String, Sendable, Hashable, Codable, CaseIterable {
    /// `PKPushRegistry` with `.voIP`.
    case voip
    /// `CLLocationManager.startMonitoringLocationPushes`.
    case location
    /// `PKPushRegistry` with `.complication` (watchOS).
    case complication
    /// `PKPushRegistry` with `.fileProvider`.
    case fileprovider
    /// `PTChannelManagerDelegate.channelManager(_:receivedEphemeralPushToken:)`.
    case pushtotalk
}
