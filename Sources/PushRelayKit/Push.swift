import Foundation

/// One `POST /v3/push` body: who gets it, what they see, and how it is sent.
public struct Push: Sendable, Encodable, Equatable {
    public var platform: Platform
    public var audience: Audience
    public var notification: PushNotification?
    public var message: PushMessage?
    public var options: PushOptions?
    /// The idempotency key. Left nil, the client generates one before the first attempt
    /// and keeps it for every retry, so a retried push is never sent twice.
    public var cid: String?
    /// Where this push's receipts are POSTed (JPush's `callback`).
    public var callback: PushCallback?

    public init(platform: Platform = .all, audience: Audience, notification: PushNotification? = nil,
                message: PushMessage? = nil, options: PushOptions? = nil, cid: String? = nil, callback: PushCallback? = nil) {
        self.platform = platform
        self.audience = audience
        self.notification = notification
        self.message = message
        self.options = options
        self.cid = cid
        self.callback = callback
    }

    /// `"all"` or a list of platforms; the relay delivers to `ios`.
    public enum Platform: Sendable, Encodable, Equatable {
        case all
        case only([String])

        public static let ios = Platform.only(["ios"])

        public func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .all: try container.encode("all")
            case .only(let platforms): try container.encode(platforms)
            }
        }
    }
}

/// `audience`: everyone, or the AND of the kinds given (an empty list counts as absent).
public struct Audience: Sendable, Encodable, Equatable {
    public var isAll: Bool
    /// Devices with any of these tags.
    public var tag: [String]
    /// Devices with all of these tags.
    public var tagAnd: [String]
    /// Devices with none of these tags.
    public var tagNot: [String]
    public var alias: [String]
    public var registrationID: [String]

    public init(tag: [String] = [], tagAnd: [String] = [], tagNot: [String] = [], alias: [String] = [], registrationID: [String] = []) {
        self.isAll = false
        self.tag = tag
        self.tagAnd = tagAnd
        self.tagNot = tagNot
        self.alias = alias
        self.registrationID = registrationID
    }

    public static var all: Audience {
        var audience = Audience()
        audience.isAll = true
        return audience
    }
    public static func alias(_ aliases: String...) -> Audience { Audience(alias: aliases) }
    public static func tags(_ tags: String...) -> Audience { Audience(tag: tags) }
    public static func registrationIDs(_ ids: String...) -> Audience { Audience(registrationID: ids) }

    private enum Keys: String, CodingKey {
        case tag, tagAnd = "tag_and", tagNot = "tag_not", alias, registrationID = "registration_id"
    }

    public func encode(to encoder: Encoder) throws {
        if isAll {
            var container = encoder.singleValueContainer()
            try container.encode("all")
            return
        }
        var container = encoder.container(keyedBy: Keys.self)
        for (key, values) in [(Keys.tag, tag), (.tagAnd, tagAnd), (.tagNot, tagNot), (.alias, alias), (.registrationID, registrationID)]
        where !values.isEmpty {
            try container.encode(values, forKey: key)
        }
    }
}

/// `notification`: the alert shortcut and the iOS fields.
public struct PushNotification: Sendable, Encodable, Equatable {
    public var alert: String?
    public var ios: IOSNotification?

    public init(alert: String? = nil, ios: IOSNotification? = nil) {
        self.alert = alert
        self.ios = ios
    }
}

/// `notification.ios`.
public struct IOSNotification: Sendable, Encodable, Equatable {
    public var alert: Alert?
    public var sound: Sound?
    public var badge: Badge?
    public var contentAvailable: Bool?
    public var mutableContent: Bool?
    public var category: String?
    public var threadID: String?
    public var interruptionLevel: InterruptionLevel?
    /// APNs' push type; nil lets the relay choose alert or background from the content.
    public var pushType: PushType?
    /// Keys set beside `aps` in the APNs payload; the app's router reads its route here.
    public var extras: [String: JSONValue]?

    public init(alert: Alert? = nil, sound: Sound? = nil, badge: Badge? = nil, contentAvailable: Bool? = nil,
                mutableContent: Bool? = nil, category: String? = nil, threadID: String? = nil,
                interruptionLevel: InterruptionLevel? = nil, pushType: PushType? = nil, extras: [String: JSONValue]? = nil) {
        self.alert = alert
        self.sound = sound
        self.badge = badge
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.category = category
        self.threadID = threadID
        self.interruptionLevel = interruptionLevel
        self.pushType = pushType
        self.extras = extras
    }

    private enum Keys: String, CodingKey {
        case alert, sound, badge, contentAvailable = "content-available", mutableContent = "mutable-content", category
        case threadID = "thread-id", interruptionLevel = "interruption-level", pushType = "push_type", extras
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(alert, forKey: .alert)
        try container.encodeIfPresent(sound, forKey: .sound)
        try container.encodeIfPresent(badge, forKey: .badge)
        try container.encodeIfPresent(contentAvailable, forKey: .contentAvailable)
        try container.encodeIfPresent(mutableContent, forKey: .mutableContent)
        try container.encodeIfPresent(category, forKey: .category)
        try container.encodeIfPresent(threadID, forKey: .threadID)
        try container.encodeIfPresent(interruptionLevel, forKey: .interruptionLevel)
        try container.encodeIfPresent(pushType, forKey: .pushType)
        try container.encodeIfPresent(extras, forKey: .extras)
    }

    /// A plain string, or APNs' alert dictionary.
    public enum Alert: Sendable, Encodable, Equatable, ExpressibleByStringLiteral {
        case text(String)
        case rich(title: String?, subtitle: String?, body: String?)

        public init(stringLiteral value: String) { self = .text(value) }

        private enum Keys: String, CodingKey { case title, subtitle, body }

        public func encode(to encoder: Encoder) throws {
            switch self {
            case .text(let text):
                var container = encoder.singleValueContainer()
                try container.encode(text)
            case .rich(let title, let subtitle, let body):
                var container = encoder.container(keyedBy: Keys.self)
                try container.encodeIfPresent(title, forKey: .title)
                try container.encodeIfPresent(subtitle, forKey: .subtitle)
                try container.encodeIfPresent(body, forKey: .body)
            }
        }
    }

    /// A sound file name, or a critical alert sound.
    public enum Sound: Sendable, Encodable, Equatable, ExpressibleByStringLiteral {
        case named(String)
        case critical(name: String, volume: Double)

        public init(stringLiteral value: String) { self = .named(value) }

        private enum Keys: String, CodingKey { case critical, name, volume }

        public func encode(to encoder: Encoder) throws {
            switch self {
            case .named(let name):
                var container = encoder.singleValueContainer()
                try container.encode(name)
            case .critical(let name, let volume):
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(1, forKey: .critical)
                try container.encode(name, forKey: .name)
                try container.encode(volume, forKey: .volume)
            }
        }
    }

    /// An absolute badge, or a change of each device's stored badge (`"+N"` / `"-N"`).
    public enum Badge: Sendable, Encodable, Equatable {
        case set(Int)
        case add(Int)

        public func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .set(let value): try container.encode(value)
            case .add(let delta): try container.encode(delta < 0 ? "\(delta)" : "+\(delta)")
            }
        }
    }

    public enum InterruptionLevel: String, Sendable, Encodable, Equatable {
        case passive, active, timeSensitive = "time-sensitive", critical
    }

    /// APNs' `apns-push-type` (docs/apns.md, "Push types"): each but alert and background goes
    /// to its own topic and device tokens (VoIP, location, …).
    public enum PushType: String, Sendable, Encodable, Equatable {
        case alert, background, voip, location, complication, fileprovider, pushtotalk
    }
}

/// `message`: JPush's in-app channel, delivered to iOS as a background push.
public struct PushMessage: Sendable, Encodable, Equatable {
    public var content: String
    public var title: String?
    public var contentType: String?
    public var extras: [String: JSONValue]?

    public init(content: String, title: String? = nil, contentType: String? = nil, extras: [String: JSONValue]? = nil) {
        self.content = content
        self.title = title
        self.contentType = contentType
        self.extras = extras
    }

    private enum CodingKeys: String, CodingKey {
        case content = "msg_content", title, contentType = "content_type", extras
    }
}

/// `options`.
public struct PushOptions: Sendable, Encodable, Equatable {
    public var sendno: Int?
    /// Seconds APNs keeps trying; 0 means now or never.
    public var timeToLive: Int?
    /// Which environment's devices are targeted; the relay defaults to production.
    public var apnsProduction: Bool?
    public var apnsCollapseID: String?
    public var overrideMsgID: String?
    /// Minutes over which a broadcast is spread.
    public var bigPushDuration: Int?
    /// APNs' priority, 10 (now), 5 (power-considerate) or 1 (lowest), where the push type allows it.
    public var apnsPriority: Int?

    public init(sendno: Int? = nil, timeToLive: Int? = nil, apnsProduction: Bool? = nil, apnsCollapseID: String? = nil,
                overrideMsgID: String? = nil, bigPushDuration: Int? = nil, apnsPriority: Int? = nil) {
        self.sendno = sendno
        self.timeToLive = timeToLive
        self.apnsProduction = apnsProduction
        self.apnsCollapseID = apnsCollapseID
        self.overrideMsgID = overrideMsgID
        self.bigPushDuration = bigPushDuration
        self.apnsPriority = apnsPriority
    }

    private enum CodingKeys: String, CodingKey {
        case sendno, timeToLive = "time_to_live", apnsProduction = "apns_production", apnsCollapseID = "apns_collapse_id"
        case overrideMsgID = "override_msg_id", bigPushDuration = "big_push_duration", apnsPriority = "apns_priority"
    }
}

/// The relay's answer to an accepted push.
public struct PushResult: Sendable, Decodable, Equatable {
    public var sendno: String
    public var msgID: String

    private enum CodingKeys: String, CodingKey { case sendno, msgID = "msg_id" }
}
