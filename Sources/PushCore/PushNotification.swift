import RelayCore

/// `notification`: the shortcut alert and the per-platform blocks.
public struct PushNotification: Sendable, Equatable {
    /// `notification.alert`, for every platform unless a platform block overrides it.
    public var alert: String?
    public var ios: IOSNotification?
    /// `android`, `winphone`, `quickapp`, `hmos` blocks: checked to be objects, kept with the
    /// message, not delivered by this relay.
    public var otherPlatforms: [String: [String: JSONValue]]

    public init(alert: String? = nil, ios: IOSNotification? = nil, otherPlatforms: [String: [String: JSONValue]] = [:]) {
        self.alert = alert
        self.ios = ios
        self.otherPlatforms = otherPlatforms
    }

    /// - Parameter ignored: gets the paths of the parts not delivered (`notification.android`, …).
    static func parse(_ reader: JSONObjectReader, ignored: inout [String]) throws(JPushError) -> PushNotification {
        ignored += try PushBodyKeys.notification.check(reader)
        let others = Platform.allCases.filter { $0 != .ios }.map(\.rawValue)
        var notification = PushNotification()
        notification.alert = try reader.optionalString("alert")
        if let ios = try reader.optionalObject("ios") { notification.ios = try IOSNotification.parse(ios) }
        for key in others {
            if let block = try reader.optionalFreeObject(key) { notification.otherPlatforms[key] = block }
        }
        guard notification.alert != nil || notification.ios != nil || !notification.otherPlatforms.isEmpty || reader.has("voip") else {
            throw JPushError.missingParameter("notification must carry alert or a platform block such as ios")
        }
        return notification
    }
}
