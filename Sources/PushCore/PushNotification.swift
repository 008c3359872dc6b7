import RelayCore

/// `notification`: the shortcut alert and the per-platform blocks.
public struct PushNotification: Sendable, Equatable {
    /// `notification.alert`, for every platform unless a platform block overrides it.
    public var alert: String?
    public var ios: IOSNotification?
    /// Delivered through FCM (`FCMPayloadBuilder`).
    public var android: AndroidNotification?
    /// `winphone`, `quickapp`, `hmos` blocks: checked to be objects, kept with the message,
    /// not delivered by this relay.
    public var otherPlatforms: [String: [String: JSONValue]]

    public init(alert: String? = nil, ios: IOSNotification? = nil, android: AndroidNotification? = nil,
                otherPlatforms: [String: [String: JSONValue]] = [:]) {
        self.alert = alert
        self.ios = ios
        self.android = android
        self.otherPlatforms = otherPlatforms
    }

    /// - Parameter ignored: gets the paths of the parts not delivered (`notification.hmos`,
    ///   `notification.android.builder_id`, …).
    static func parse(_ reader: JSONObjectReader, ignored: inout [String]) throws(JPushError) -> PushNotification {
        ignored += try PushBodyKeys.notification.check(reader)
        let others = Platform.allCases.filter { $0 != .ios && $0 != .android }.map(\.rawValue)
        var notification = PushNotification()
        notification.alert = try reader.optionalString("alert")
        if let ios = try reader.optionalObject("ios") { notification.ios = try IOSNotification.parse(ios) }
        if let android = try reader.optionalObject("android") { notification.android = try AndroidNotification.parse(android, ignored: &ignored) }
        for key in others {
            if let block = try reader.optionalFreeObject(key) { notification.otherPlatforms[key] = block }
        }
        guard notification.alert != nil || notification.ios != nil || notification.android != nil
                || !notification.otherPlatforms.isEmpty || reader.has("voip") else {
            throw JPushError.missingParameter("notification must carry alert or a platform block such as ios")
        }
        return notification
    }
}
