import Foundation
import RelayCore

/// Turns a validated push into what the APNs client sends, in two steps: `prepare` once per
/// message (all the JSON work), then `PreparedNotification.notification(…)` per device,
/// which only splices the device's badge into the prepared bytes.
///
/// The payload (keys sorted, so the same push gives the same bytes):
/// ```
/// {"_j_message":{…},"_j_msgid":123,"aps":{…},"<extras keys>":…}
/// ```
/// - `aps`: `alert` (`notification.ios.alert`, else `notification.alert`; an empty text
///   shows none), `badge`, `sound`, `content-available: 1`, `mutable-content: 1`,
///   `category`, `thread-id`, `interruption-level`, `relevance-score`, `target-content-id`:
///   every field JPush and Apple both define, under Apple's name.
/// - `notification.ios.extras` at the top level; they may not use `aps`, `_j_msgid` or
///   `_j_message`.
/// - `_j_msgid`: the msg_id as a JSON number, as JPush's own APNs payloads carry it.
/// - `_j_message`: the `message` (`msg_content`, `title`, `content_type`, `extras` under
///   their JPush names), when the push has one.
///
/// The kind of push (`notification.ios.push_type`, else inferred):
/// - something to show (alert, sound or badge): `alert`, priority 10. A `message` rides
///   along in `_j_message`; `content-available` only if `notification.ios` asks for it.
/// - nothing to show but `content-available` (asked for, or implied by a `message`):
///   `background`, priority 5, with no alert, sound or badge.
/// - `options.apns_priority` replaces the default where the push type allows it, and the
///   topic gets the push type's suffix (`IOSPushType`).
public enum APNSPayloadBuilder {
    /// Prepares a message's notification for all its devices.
    ///
    /// - Parameters:
    ///   - request: a validated push.
    ///   - msgID: the message's id, written into the payload.
    ///   - topic: the app's bundle id (`apns-topic`).
    ///   - acceptedAt: Unix seconds when the push was accepted (or its schedule fired);
    ///     `time_to_live` counts from it. Store it with the message: re-sends after a crash
    ///     must use the same value, so they expire when the first attempt would have.
    ///   - collapseID: the message's collapse id as stored when it was accepted
    ///     (`CollapseID`); nil for a message stored before it was (then it is the one of a
    ///     push that overrides none).
    /// - Throws: 1005 when the payload could exceed its push type's `payloadBytes` for some
    ///   device; 1002 when the push has nothing to deliver to iOS.
    public static func prepare(_ request: PushRequest, msgID: MessageID, topic: String, acceptedAt: Int,
                               collapseID: String? = nil) throws(JPushError) -> PreparedNotification {
        if let content = request.liveActivity {
            return try LiveActivityPayloadBuilder.prepare(content, options: request.options, msgID: msgID, topic: topic,
                                                          acceptedAt: acceptedAt, collapseID: collapseID)
        }
        let ios = request.notification?.ios ?? IOSNotification()
        var aps: [String: APSValue] = [:]
        switch ios.alert ?? request.notification?.alert.map(IOSAlert.text) {
        case .text(let text)? where !text.isEmpty: aps["alert"] = .value(.string(text))
        case .dictionary(let fields)?: aps["alert"] = .value(.object(fields))
        default: break
        }
        switch ios.badge {
        case .set(let value)?: aps["badge"] = .value(.int(Int64(value)))
        case .add?: aps["badge"] = .badgeSlot
        case nil: break
        }
        switch ios.sound {
        case .named(let name)?: aps["sound"] = .value(.string(name))
        case .dictionary(let name, let critical, let volume)?:
            var sound: [String: JSONValue] = ["name": .string(name)]
            if critical { sound["critical"] = .int(1) }
            if let volume { sound["volume"] = .double(volume) }
            aps["sound"] = .value(.object(sound))
        case nil: break
        }
        let shows = !aps.isEmpty
        if ios.contentAvailable || (!shows && request.message != nil) { aps["content-available"] = .value(.int(1)) }
        guard shows || aps["content-available"] != nil || ios.pushType != nil else {
            throw JPushError.missingParameter(
                "nothing to deliver to iOS: give notification.alert, notification.ios with alert, sound, badge or content-available, or a message")
        }
        let pushType = ios.pushType ?? (shows ? .alert : .background)
        let priority = try checked(pushType, explicit: ios.pushType != nil, shows: shows,
                                   contentAvailable: aps["content-available"] != nil, priority: request.options.apnsPriority)
        if ios.mutableContent { aps["mutable-content"] = .value(.int(1)) }
        if let category = ios.category { aps["category"] = .value(.string(category)) }
        if let threadID = ios.threadID { aps["thread-id"] = .value(.string(threadID)) }
        if let level = ios.interruptionLevel { aps["interruption-level"] = .value(.string(level.rawValue)) }
        if let score = ios.relevanceScore { aps["relevance-score"] = .value(.double(score)) }
        if let target = ios.targetContentID { aps["target-content-id"] = .value(.string(target)) }
        if let criteria = ios.filterCriteria { aps["filter-criteria"] = .value(.string(criteria)) }

        // Parsing refuses extras that use our keys; a request built in code cannot slip one in.
        var top = ios.extras.filter { !IOSNotification.reservedKeys.contains($0.key) }
        top["_j_msgid"] = .int(msgID.rawValue)
        if let message = request.message { top["_j_message"] = messageObject(message) }

        let (head, tail) = write(top: top, aps: aps)
        let badgeDigits = aps["badge"] == .badgeSlot ? String(PushLimits.maxBadge).utf8.count : 0
        let maxSize = head.count + tail.count + badgeDigits
        guard maxSize <= pushType.payloadBytes else {
            throw JPushError(
                status: 400, code: 1005,
                message: "the APNs payload would be \(maxSize) bytes; at most \(pushType.payloadBytes) are allowed for \(pushType.rawValue) pushes — shorten the alert or extras")
        }
        // Push to Talk: delivered now or never (Apple, "Creating a Push to Talk app": apns-expiration 0).
        let ttl = pushType == .pushtotalk ? 0 : request.options.timeToLive
        return PreparedNotification(
            msgID: msgID, pushType: pushType.rawValue, priority: priority, topic: topic + pushType.topicSuffix,
            expiration: ttl == 0 ? 0 : acceptedAt + ttl,
            collapseID: collapseID ?? CollapseID.of(request.options, msgID: msgID, overridden: nil),
            badge: ios.badge, maxPayloadSize: maxSize, head: head, tail: tail)
    }

    /// APNs' rules for the push type (`IOSPushType`), checked before anything is stored.
    ///
    /// - Returns: the `apns-priority`: the one asked for, else the push type's default.
    /// - Throws: 1003 naming the rule broken.
    private static func checked(_ pushType: IOSPushType, explicit: Bool, shows: Bool, contentAvailable: Bool,
                                priority: Int?) throws(JPushError) -> Int {
        let field = "notification.ios.push_type \(pushType.rawValue)"
        if shows, !pushType.mayShow {
            throw JPushError.illegalValue("\(field) shows nothing: remove the alert, sound and badge")
        }
        if pushType == .alert, !shows {
            throw JPushError.illegalValue("\(field) needs an alert, sound or badge; a push that only wakes the app is a background push")
        }
        if pushType == .background, !contentAvailable {
            throw JPushError.illegalValue("\(field) needs content-available (or a message)")
        }
        guard let priority else { return pushType.priorities[0] }
        guard pushType.priorities.contains(priority) else {
            let allowed = pushType.priorities.map(String.init).joined(separator: " or ")
            let why = explicit ? " for \(pushType.rawValue) pushes: APNs takes them"
                : ": a push that shows nothing goes to iOS as a background push, which APNs takes"
            throw JPushError.illegalValue("options.apns_priority \(priority) is not allowed\(why) at priority \(allowed) only")
        }
        return priority
    }

    private static func messageObject(_ message: PushMessage) -> JSONValue {
        var object: [String: JSONValue] = ["msg_content": .string(message.msgContent)]
        if let title = message.title { object["title"] = .string(title) }
        if let contentType = message.contentType { object["content_type"] = .string(contentType) }
        if let extras = message.extras { object["extras"] = .object(extras) }
        return .object(object)
    }

    /// A value of `aps`, or the place where each device's badge goes.
    private enum APSValue: Equatable {
        case value(JSONValue)
        case badgeSlot
    }

    /// The payload's bytes, split where the badge digits go (all in `head` without a slot).
    private static func write(top: [String: JSONValue], aps: [String: APSValue]) -> (head: [UInt8], tail: [UInt8]) {
        var writer = CanonicalJSON()
        var head: [UInt8]?
        writer.append("{")
        for (index, key) in CanonicalJSON.sorted(top.keys + ["aps"]).enumerated() {
            if index > 0 { writer.append(",") }
            writer.writeKey(key)
            guard key == "aps" else {
                writer.write(top[key]!)
                continue
            }
            writer.append("{")
            for (apsIndex, apsKey) in CanonicalJSON.sorted(aps.keys).enumerated() {
                if apsIndex > 0 { writer.append(",") }
                writer.writeKey(apsKey)
                switch aps[apsKey]! {
                case .value(let value): writer.write(value)
                case .badgeSlot:
                    head = writer.bytes
                    writer = CanonicalJSON()
                }
            }
            writer.append("}")
        }
        writer.append("}")
        if let head { return (head, writer.bytes) }
        return (writer.bytes, [])
    }
}

/// A message's notification, ready to be made for each device.
public struct PreparedNotification: Sendable, Equatable {
    public let msgID: MessageID
    /// `apns-push-type` (`IOSPushType`).
    public let pushType: String
    /// `apns-priority`: `options.apns_priority`, else 10 (5 for background pushes).
    public let priority: Int
    /// `apns-topic`: the bundle id with the push type's suffix.
    public let topic: String
    /// `apns-expiration`, Unix seconds; 0 means "now or never". Retries stop there.
    public let expiration: Int
    /// `apns-collapse-id`, the same on every notification of the message (`CollapseID`).
    public let collapseID: String
    public let badge: BadgeChange?
    /// The payload's size with the longest possible badge.
    public let maxPayloadSize: Int
    let head: [UInt8]
    let tail: [UInt8]

    /// The notification for one device.
    ///
    /// - Parameters:
    ///   - deviceID: the device row's id, which makes the `apns-id` (the same on every
    ///     attempt and every re-send).
    ///   - storedBadge: the device's stored badge, for `"+N"` / `"-N"`.
    public func notification(deviceID: Int64, storedBadge: Int) -> BuiltNotification {
        let newBadge = badge?.applied(to: storedBadge)
        var payload = head
        if case .add? = badge, let newBadge {
            payload.append(contentsOf: String(newBadge).utf8)
            payload.append(contentsOf: tail)
        }
        return BuiltNotification(
            pushType: pushType, priority: priority, topic: topic, expiration: expiration,
            collapseID: collapseID,
            apnsID: APNSNotificationID.make(msgID: msgID, deviceID: deviceID), payload: payload, newBadge: newBadge)
    }
}

/// One device's notification: the values the APNs client sends, and the badge to store.
public struct BuiltNotification: Sendable, Equatable {
    /// `IOSPushType`'s raw value.
    public var pushType: String
    /// 10, 5 or 1.
    public var priority: Int
    public var topic: String
    /// Unix seconds; 0 means "now or never".
    public var expiration: Int
    /// The message's: a duplicate (a retry, a re-send after a crash) replaces the first copy.
    public var collapseID: String
    public var apnsID: UUID
    /// The JSON body, at most the push type's `payloadBytes`.
    public var payload: [UInt8]
    /// The device's badge after this push, to store back; nil when the push leaves it alone.
    public var newBadge: Int?
}
