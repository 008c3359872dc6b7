import RelayCore

/// Turns a validated push into the `message` object of FCM HTTP v1's `messages:send`, once
/// per message: the FCM client adds each device's `token` (`FCMClient`'s `FCMMessage`).
///
/// From JPush (keys sorted, so the same push gives the same bytes):
/// - `notification`: `title` (`notification.android.title`), `body`
///   (`notification.android.alert`, else `notification.alert`), `image` (`big_pic_path`,
///   when it is an http(s) URL);
/// - `android`: `ttl` (`options.time_to_live`, `"86400s"`), `priority` (JPush's `priority`
///   1 or 2: `HIGH`, -2…0: `NORMAL`; absent: FCM's default), `collapse_key` (only with
///   `override_msg_id` or `apns_collapse_id`: the message's collapse id; FCM keeps at most
///   four collapse keys per device, so messages that ask for none get none), and
///   `notification`: `channel_id` (`options.third_party_channel.fcm.channel_id`, else
///   `notification.android.channel_id`), `notification_priority` (-2…2: `PRIORITY_MIN`…
///   `PRIORITY_MAX`), `sound`, `click_action` (`intent.url`) and `tag`: the message's
///   collapse id, so a duplicate (a retry, a re-send after a crash) replaces the first copy
///   in the notification drawer instead of showing twice;
/// - `data`: `notification.android.extras`, `category`, and with a `message` (JPush's custom
///   message) `msg_content`, `title`, `content_type` and its extras; `_j_msgid` the msg_id.
///   Every value is a string, as FCM requires: numbers and booleans as their JSON text,
///   objects and arrays as JSON.
///
/// A push with a `message` and no Android alert is a data-only message (the app's
/// `onMessageReceived` gets it, nothing is shown).
public enum FCMPayloadBuilder {
    /// FCM's limit on a message's payload; the whole `message` object is held to it.
    public static let payloadBytes = 4096
    /// Keys FCM refuses in `data`, and the prefixes it reserves.
    static let reservedDataKeys: Set<String> = ["from", "notification", "message_type"]
    static let reservedDataPrefixes = ["google", "gcm"]

    /// Prepares a message's FCM `message` for all its Android devices.
    ///
    /// - Parameters:
    ///   - collapseID: the message's collapse id as stored (`CollapseID`); nil: the one of a
    ///     push that overrides none.
    /// - Throws: 1002 when the push has nothing for Android; 1003 for extras FCM refuses; 1005
    ///   when the message would exceed `payloadBytes`.
    public static func prepare(_ request: PushRequest, msgID: MessageID, acceptedAt: Int, collapseID: String? = nil)
        throws(JPushError) -> PreparedFCMMessage {
        let android = request.notification?.android ?? AndroidNotification()
        let body = [android.alert, request.notification?.alert].compactMap { $0 }.first { !$0.isEmpty }
        guard body != nil || request.message != nil else {
            throw JPushError.missingParameter(
                "nothing to deliver to Android: give notification.alert, notification.android with alert, or a message")
        }
        let collapse = collapseID ?? CollapseID.of(request.options, msgID: msgID, overridden: nil)
        var message: [String: JSONValue] = [:]
        var fcmAndroid: [String: JSONValue] = ["ttl": .string("\(request.options.timeToLive)s")]
        if let priority = android.priority, body != nil { fcmAndroid["priority"] = .string(priority >= 1 ? "HIGH" : "NORMAL") }
        if request.options.overrideMsgID != nil || request.options.apnsCollapseID != nil { fcmAndroid["collapse_key"] = .string(collapse) }

        var data: [String: JSONValue] = [:]
        try addData(android.extras, to: &data, field: "notification.android.extras")
        if let body {
            var shown: [String: JSONValue] = ["body": .string(body)]
            if let title = android.title { shown["title"] = .string(title) }
            if let image = android.image { shown["image"] = .string(image) }
            message["notification"] = .object(shown)
            var drawer: [String: JSONValue] = ["tag": .string(collapse)]
            if let channel = request.options.thirdPartyChannels.fcmChannelID ?? android.channelID { drawer["channel_id"] = .string(channel) }
            if let priority = android.priority { drawer["notification_priority"] = .string(notificationPriority(priority)) }
            if let sound = android.sound { drawer["sound"] = .string(sound) }
            if let clickAction = android.clickAction { drawer["click_action"] = .string(clickAction) }
            fcmAndroid["notification"] = .object(drawer)
            if let category = android.category, data["category"] == nil { data["category"] = .string(category) }
        }
        if let custom = request.message {
            try addData(custom.extras, to: &data, field: "message.extras")
            data["msg_content"] = .string(custom.msgContent)
            if let title = custom.title { data["title"] = .string(title) }
            if let contentType = custom.contentType { data["content_type"] = .string(contentType) }
        }
        data["_j_msgid"] = .string(String(msgID.rawValue))
        message["data"] = .object(data)
        message["android"] = .object(fcmAndroid)

        let bytes = CanonicalJSON.bytes(.object(message))
        guard bytes.count <= payloadBytes else {
            throw JPushError(
                status: 400, code: 1005,
                message: "the FCM message would be \(bytes.count) bytes; at most \(payloadBytes) are allowed — shorten the alert or extras")
        }
        let ttl = request.options.timeToLive
        return PreparedFCMMessage(msgID: msgID, message: bytes, expiration: acceptedAt + ttl)
    }

    /// JPush's priority -2…2 as FCM's `notification_priority`.
    static func notificationPriority(_ priority: Int) -> String {
        switch priority {
        case ...(-2): "PRIORITY_MIN"
        case -1: "PRIORITY_LOW"
        case 0: "PRIORITY_DEFAULT"
        case 1: "PRIORITY_HIGH"
        default: "PRIORITY_MAX"
        }
    }

    /// Adds extras to `data`, each value as a string; nulls are left out.
    private static func addData(_ extras: [String: JSONValue]?, to data: inout [String: JSONValue], field: String) throws(JPushError) {
        for (key, value) in extras ?? [:] {
            if reservedDataKeys.contains(key) || reservedDataPrefixes.contains(where: { key.lowercased().hasPrefix($0) }) {
                throw JPushError.illegalValue(
                    "\(field) may not use the key \(InputEcho.quoted(key)): FCM reserves from, notification, message_type and keys starting with google or gcm")
            }
            if let text = dataString(value) { data[key] = .string(text) }
        }
    }

    /// A `data` value as FCM wants it: a string.
    static func dataString(_ value: JSONValue) -> String? {
        switch value {
        case .null: nil
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number): number.description
        case .array, .object: String(decoding: CanonicalJSON.bytes(value), as: UTF8.self)
        }
    }
}

/// A message's FCM `message` object (without `token`), ready for each Android device.
public struct PreparedFCMMessage: Sendable, Equatable {
    public let msgID: MessageID
    /// The JSON object, at most `FCMPayloadBuilder.payloadBytes`.
    public let message: [UInt8]
    /// Unix seconds after which it is not sent (nor retried): accepted plus `time_to_live`.
    public let expiration: Int
}
