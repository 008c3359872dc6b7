import RelayCore

/// `notification`: the shortcut alert and the per-platform blocks.
public struct PushNotification: Sendable, Equatable {
    /// `notification.alert`, for every platform unless a platform block overrides it.
    public var alert: String?
    public var ios: IOSNotification?
    /// `android`, `winphone`, `quickapp`, `hmos` blocks: checked to be objects, not
    /// delivered by this relay.
    public var otherPlatforms: [String: [String: JSONValue]]

    public init(alert: String? = nil, ios: IOSNotification? = nil, otherPlatforms: [String: [String: JSONValue]] = [:]) {
        self.alert = alert
        self.ios = ios
        self.otherPlatforms = otherPlatforms
    }

    static func parse(_ reader: JSONObjectReader) throws(JPushError) -> PushNotification {
        let others = Platform.allCases.filter { $0 != .ios }.map(\.rawValue)
        try reader.rejectUnknownKeys(allowed: Set(["alert", "ios"] + others))
        var notification = PushNotification()
        notification.alert = try reader.optionalString("alert")
        if let ios = try reader.optionalObject("ios") { notification.ios = try IOSNotification.parse(ios) }
        for key in others {
            if let block = try reader.optionalFreeObject(key) { notification.otherPlatforms[key] = block }
        }
        guard notification.alert != nil || notification.ios != nil || !notification.otherPlatforms.isEmpty else {
            throw JPushError.missingParameter("notification must carry alert or a platform block such as ios")
        }
        return notification
    }
}
