import RelayCore

/// A validated push: the body of `POST /v3/push`, `/v3/push/validate` and `/v3/grouppush`,
/// or one entry of a `pushlist`.
///
/// Validation is complete: a request that parses can be accepted, and its APNs payload fits
/// for every device (checked with the largest badge and msg_id), so the API can answer 1005
/// before accepting.
public struct PushRequest: Sendable, Equatable {
    public var platform: PlatformSelection
    public var audience: Audience
    public var notification: PushNotification?
    public var message: PushMessage?
    public var options: PushOptions
    /// The idempotency key: the same cid for the same app gets the first answer again.
    public var cid: String?
    /// Where this message's receipts are POSTed (`callback`).
    public var callback: PushCallback?
    /// The documented parts of the body this relay keeps with the message but does not
    /// deliver, by path (`"notification.android"`, `"sms_message"`, …), sorted.
    public var ignored: [String]
    /// True when iOS devices get a notification: the platform includes iOS and the body has
    /// something for them. A body whose only content is for others (an `android` block with
    /// `platform: "all"`, `voip`, `sms_message`, …) is accepted and sends nothing to iOS.
    public var deliversToIOS: Bool
    /// The kind of token the push goes to (`notification.ios.push_type` voip, location,
    /// complication, fileprovider or pushtotalk): the devices' tokens of that kind, not their
    /// notification tokens. nil for alert and background pushes.
    public var tokenKind: PushTokenKind? { notification?.ios?.pushType?.tokenKind }
    /// A Live Activity push (`live_activity` in PushRelay's shape, `LiveActivityPush`): it goes
    /// to push-to-start tokens (start) or an activity's update tokens, never with a notification.
    public var liveActivity: LiveActivityContent?
    /// True when Android devices get a message through FCM: the platform includes Android and
    /// the body has an alert for them or a `message`.
    public var deliversToAndroid: Bool

    public init(
        platform: PlatformSelection, audience: Audience, notification: PushNotification? = nil,
        message: PushMessage? = nil, options: PushOptions = PushOptions(), cid: String? = nil, callback: PushCallback? = nil,
        ignored: [String] = []
    ) {
        self.platform = platform
        self.audience = audience
        self.notification = notification
        self.message = message
        self.options = options
        self.cid = cid
        self.callback = callback
        self.ignored = ignored
        deliversToIOS = platform.includesIOS
        deliversToAndroid = platform.includesAndroid
    }

    /// Parses and validates a push body.
    ///
    /// - Throws: `JPushError` 1002 (missing), 1003 (illegal value), 1005 (APNs payload too
    ///   large) or 1009 (a key JPush does not document), each message naming the field's path.
    public static func parse(_ body: [UInt8]) throws(JPushError) -> PushRequest {
        try PushRequest(json: JSONValue.parse(body))
    }

    /// Parses a body stored when its push was accepted (or its schedule made), for sending
    /// it. Its `callback` was read once, as the message row went in (migration 0047's
    /// trigger), and no sender needs it; so a callback accepted and ignored before callbacks
    /// were built, which today's rules would refuse, does not keep the push from being sent.
    public static func parseStored(_ body: [UInt8]) throws(JPushError) -> PushRequest {
        guard case .object(var fields) = try JSONValue.parse(body), fields["callback"] != nil else { return try parse(body) }
        fields["callback"] = nil
        return try PushRequest(json: .object(fields))
    }

    /// Validates a parsed push body.
    public init(json: JSONValue) throws(JPushError) {
        let reader = try JSONObjectReader(json, path: "")
        try self.init(reader, keys: .body, audience: Audience.parse(reader.fields["audience"]), cid: Self.cid(reader))
    }

    /// The common part of a push body and a pushlist entry; the audience comes from the caller.
    init(_ reader: JSONObjectReader, keys: PushBodyKeys, audience: @autoclosure () throws(JPushError) -> Audience,
         cid: @autoclosure () throws(JPushError) -> String?) throws(JPushError) {
        var ignored = try keys.check(reader)
        platform = try PlatformSelection.parse(reader.fields["platform"])
        self.audience = try audience()
        notification = try reader.optionalObject("notification").map { (notification) throws(JPushError) in
            try PushNotification.parse(notification, ignored: &ignored)
        }
        message = try reader.optionalObject("message").map { (message) throws(JPushError) in
            try PushMessage.parse(message, ignored: &ignored)
        }
        liveActivity = try Self.liveActivity(reader, ignored: &ignored)
        if liveActivity != nil, notification != nil || message != nil {
            throw JPushError.illegalValue("a Live Activity push carries live_activity only: send the notification or message in a push of its own")
        }
        guard notification != nil || message != nil || liveActivity != nil else {
            throw JPushError.missingParameter("notification or message is required")
        }
        if PushBodyKeys.voipDelivered(reader.fields), case .object(let fields)? = reader.fields["notification"],
           case .object(let voip)? = fields["voip"] {
            notification?.ios = try IOSNotification.voip(voip, field: "notification.voip")
            ignored.removeAll { $0 == "notification.voip" }
        }
        options = try PushOptions.parse(reader.optionalObject("options"), ignored: &ignored)
        self.cid = try cid()
        callback = try reader.optionalObject("callback").map { (callback) throws(JPushError) in try PushCallback.parse(callback) }
        if notification?.android != nil, !platform.includesAndroid { ignored.append("notification.android") }
        self.ignored = CanonicalJSON.sorted(ignored)
        deliversToIOS = platform.includesIOS
        deliversToAndroid = platform.includesAndroid && liveActivity == nil
        if liveActivity != nil, !deliversToIOS {
            throw JPushError.illegalValue("a Live Activity push goes to iOS: platform must include \"ios\"")
        }
        // The worst cases: the longest msg_id and badge. Each throws 1005 when too large, 1003
        // for extras the service refuses, 1002 when there is nothing for its platform.
        var nothing: JPushError?
        if deliversToAndroid {
            do throws(JPushError) {
                _ = try FCMPayloadBuilder.prepare(self, msgID: MessageID(rawValue: .max)!, acceptedAt: 0)
            } catch {
                guard error.code == 1002 else { throw error }
                deliversToAndroid = false
                nothing = error
            }
        }
        if deliversToIOS {
            do throws(JPushError) {
                _ = try APNSPayloadBuilder.prepare(self, msgID: MessageID(rawValue: .max)!, topic: "", acceptedAt: 0)
            } catch {
                guard error.code == 1002 else { throw error }
                deliversToIOS = false
                nothing = nothing ?? error
            }
        }
        // Android devices have no such token, and a message is one push type.
        if let kind = tokenKind, deliversToIOS, deliversToAndroid {
            throw JPushError.illegalValue(
                "a \(kind.displayName) push (notification.ios.push_type \(kind.rawValue)) goes to iOS devices' \(kind.displayName) tokens only: send Android its part in a push of its own, or give platform \"ios\"")
        }
        // Nothing for a platform is a mistake only when there is no content for anyone else either.
        if let nothing, !deliversToIOS, !deliversToAndroid, !self.ignored.contains(where: PushBodyKeys.ignoredContent.contains) {
            throw nothing
        }
    }

    /// `live_activity` in PushRelay's shape (it has an `event`), taken out of the ignored parts;
    /// nil when absent or in another shape (kept with the message, not delivered).
    private static func liveActivity(_ reader: JSONObjectReader, ignored: inout [String]) throws(JPushError) -> LiveActivityContent? {
        guard let object = try reader.optionalObject("live_activity"), object.has("event") else { return nil }
        try object.rejectUnknownKeys(allowed: LiveActivityContent.fields.union(LiveActivityContent.appleNames.values))
        ignored.removeAll { $0 == "live_activity" }
        return try LiveActivityContent.parse(object, activityID: nil)
    }

    /// The push with `callback` among its ignored parts: for an app without a webhook, which
    /// nothing could sign its callbacks with.
    public func callbackIgnored() -> PushRequest {
        var push = self
        if callback != nil, !ignored.contains("callback") { push.ignored = CanonicalJSON.sorted(ignored + ["callback"]) }
        return push
    }

    /// `cid`: non-empty, at most `PushLimits.cidBytes`, no control characters.
    static func cid(_ reader: JSONObjectReader) throws(JPushError) -> String? {
        guard let cid = try reader.optionalString("cid") else { return nil }
        try checkCID(cid, field: "cid")
        return cid
    }

    static func checkCID(_ cid: String, field: String) throws(JPushError) {
        guard !cid.isEmpty, cid.utf8.count <= PushLimits.cidBytes, !cid.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw JPushError.illegalValue("\(field) must be 1 to \(PushLimits.cidBytes) bytes without control characters")
        }
    }
}
