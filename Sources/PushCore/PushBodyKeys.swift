import RelayCore

/// The keys JPush documents for each object of a push body that PushRelay reads, split into
/// those it delivers and those it keeps with the message without delivering them (other
/// platforms, vendor channels, SMS, …).
///
/// A key in neither set is refused with 1009, so a typo is an error; a documented key is never
/// refused. The insides of an ignored part are JPush's business: only their type is checked
/// (an object, a flag, …), so a body JPush accepts is accepted here.
public struct PushBodyKeys: Sendable {
    /// The object's path with a trailing dot ("" for the body, "notification." …).
    public let path: String
    /// Keys PushRelay reads and delivers (or uses: `cid`, `options.sendno`, …).
    public let delivered: Set<String>
    /// Keys PushRelay accepts, stores with the message and does not deliver, with the type
    /// each must have.
    public let ignored: [String: IgnoredKind]

    /// What an ignored key's value must be.
    public enum IgnoredKind: Sendable, Equatable {
        case object
        /// `true`/`false`, or 0/1 as JPush's SDKs send flags.
        case flag
        case integer
        case string
    }

    public var documented: Set<String> { delivered.union(ignored.keys) }

    /// The push body: `platform`, `audience`, `notification`, `message`, `options`, `cid`,
    /// `callback` (`PushCallback`), and the parts only JPush delivers.
    public static let body = PushBodyKeys(
        path: "",
        delivered: ["platform", "audience", "notification", "message", "options", "cid", "callback"],
        ignored: [
            "sms_message": .object, "notification_3rd": .object, "inapp_message": .object,
            "live_activity": .object,
        ])

    /// `notification`: the shortcut alert, iOS and Android are delivered; the other
    /// platforms' blocks and smart timing are not; VoIP is when it is the only content
    /// (`voipDelivered`).
    /// `android`'s keys are checked by `AndroidNotification`, which names those it ignores.
    public static let notification = PushBodyKeys(
        path: "notification.",
        delivered: ["alert", "ios", "android"],
        ignored: [
            "hmos": .object, "quickapp": .object, "winphone": .object, "voip": .object,
            "ai_opportunity": .flag,
        ])

    /// `notification.ios`: all delivered, in `aps` or beside it (`extras`).
    public static let ios = PushBodyKeys(
        path: "notification.ios.",
        delivered: [
            "alert", "sound", "badge", "content-available", "mutable-content", "category", "thread-id",
            "interruption-level", "relevance-score", "target-content-id", "filter-criteria", "push_type", "extras",
        ],
        ignored: [:])

    /// `message`: delivered to iOS as a background push and to Android as a data message; `test_message` marks HarmonyOS test
    /// messages.
    public static let message = PushBodyKeys(
        path: "message.",
        delivered: ["msg_content", "title", "content_type", "extras"],
        ignored: ["test_message": .flag])

    /// `options`: the Android message classification is not delivered; of the vendor
    /// channels' options (`third_party_channel`) `ThirdPartyChannels` uses FCM's and names
    /// the others as ignored.
    public static let options = PushBodyKeys(
        path: "options.",
        delivered: [
            "sendno", "time_to_live", "apns_production", "apns_collapse_id", "apns_priority", "override_msg_id", "big_push_duration",
            "third_party_channel",
        ],
        ignored: [
            "classification": .integer, "notification_3rd_ver": .string,
            "alternate_set": .flag,
        ])

    /// An entry of a batch push's `pushlist`: the body's keys with `target` for `audience`,
    /// and no `cid` (the entry's key is its cid).
    public static let pushlistEntry = PushBodyKeys(
        path: "", delivered: ["platform", "target", "notification", "message", "options", "callback"], ignored: body.ignored)

    /// The ignored parts that carry content for someone (another platform, a channel, SMS), as
    /// opposed to options of a delivery: a body whose only content is in them is accepted.
    public static let ignoredContent: Set<String> = [
        "sms_message", "notification_3rd", "inapp_message", "live_activity", "notification.android", "notification.hmos",
        "notification.quickapp", "notification.winphone", "notification.voip",
    ]

    /// Every object of a push body PushRelay checks the keys of, for documentation and tests.
    public static let all: [PushBodyKeys] = [body, notification, ios, message, options]

    /// Refuses undocumented keys (1009) and checks the type of each ignored part present.
    ///
    /// - Returns: the paths in the push body of the ignored parts present (not null), e.g.
    ///   `"notification.android"`, in the order the keys sort.
    func check(_ reader: JSONObjectReader) throws(JPushError) -> [String] {
        try reader.rejectUnknownKeys(allowed: documented)
        var present: [String] = []
        for key in CanonicalJSON.sorted(ignored.keys) where reader.has(key) {
            switch ignored[key]! {
            case .object: _ = try reader.optionalFreeObject(key)
            case .flag: _ = try reader.optionalFlag(key)
            case .integer: _ = try reader.optionalInt(key)
            case .string: _ = try reader.optionalString(key)
            }
            present.append(path + key)
        }
        return present
    }

    /// The ignored parts of a stored push body, by their keys alone: the body was validated
    /// when it was accepted, and a report shows what it holds even if the rules changed since.
    ///
    /// - Returns: the paths, sorted; none when the body is not a JSON object.
    public static func ignoredParts(ofBody body: [UInt8]) -> [String] {
        guard case .object(let top)? = try? JSONValue.parse(body) else { return [] }
        var parts = Self.body.present(in: top)
        for keys in [notification, message, options] {
            let key = String(keys.path.dropLast())
            if case .object(let fields)? = top[key] { parts += keys.present(in: fields) }
        }
        if voipDelivered(top) { parts.removeAll { $0 == "notification.voip" } }
        if case .object(let fields)? = top["notification"], case .object(let android)? = fields["android"] {
            parts += AndroidNotification.ignoredKeys(of: android)
        }
        if case .object(let fields)? = top["options"], case .object(let channels)? = fields["third_party_channel"] {
            parts += ThirdPartyChannels.ignoredParts(of: channels)
        }
        if case .object(let fields)? = top["notification"], fields["android"].map({ $0 != .null }) == true,
           let platform = try? PlatformSelection.parse(top["platform"]), !platform.includesAndroid {
            parts.append("notification.android")
        }
        return CanonicalJSON.sorted(parts)
    }

    /// Whether JPush's `notification.voip` (custom keys for the app's PushKit handler) is
    /// delivered, as a VoIP push to the devices' VoIP tokens (`IOSNotification.voip`): when it
    /// is the body's only content and the platform includes iOS. Beside an alert, an `ios` or
    /// `android` block or a `message` it is kept and ignored, as before: a message is one push
    /// type, and a VoIP push goes to iOS only.
    ///
    /// - Parameter top: the push body's (or pushlist entry's) fields.
    public static func voipDelivered(_ top: [String: JSONValue]) -> Bool {
        guard case .object(let notification)? = top["notification"], case .object? = notification["voip"],
              (top["message"] ?? .null) == .null,
              ["alert", "ios", "android"].allSatisfy({ (notification[$0] ?? .null) == .null }),
              (try? PlatformSelection.parse(top["platform"]))?.includesIOS == true else { return false }
        return true
    }

    private func present(in fields: [String: JSONValue]) -> [String] {
        ignored.keys.filter { fields[$0] != nil && fields[$0] != .null }.map { path + $0 }
    }
}
