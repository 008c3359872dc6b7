import RelayCore

/// `notification.ios`: what iOS devices show, validated field by field.
public struct IOSNotification: Sendable, Equatable {
    /// Overrides `notification.alert`; an empty text means "show no alert" (JPush's rule for
    /// silent pushes).
    public var alert: IOSAlert?
    public var sound: IOSSound?
    public var badge: BadgeChange?
    public var contentAvailable: Bool
    public var mutableContent: Bool
    public var category: String?
    public var threadID: String?
    public var interruptionLevel: InterruptionLevel?
    /// `aps.relevance-score`: from 0 to 1, how iOS ranks the notification in a summary.
    public var relevanceScore: Double?
    /// `aps.target-content-id`: the window or content the notification brings forward.
    public var targetContentID: String?
    /// `aps.filter-criteria`: the Focus filter that decides whether the notification shows now.
    public var filterCriteria: String?
    /// `push_type`: the `apns-push-type`; nil infers alert or background from the content.
    public var pushType: IOSPushType?
    /// Placed at the top level of the APNs payload beside `aps`.
    public var extras: [String: JSONValue]

    public init(
        alert: IOSAlert? = nil, sound: IOSSound? = nil, badge: BadgeChange? = nil, contentAvailable: Bool = false,
        mutableContent: Bool = false, category: String? = nil, threadID: String? = nil,
        interruptionLevel: InterruptionLevel? = nil, relevanceScore: Double? = nil, targetContentID: String? = nil,
        filterCriteria: String? = nil, pushType: IOSPushType? = nil, extras: [String: JSONValue] = [:]
    ) {
        self.alert = alert
        self.sound = sound
        self.badge = badge
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.category = category
        self.threadID = threadID
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.targetContentID = targetContentID
        self.filterCriteria = filterCriteria
        self.pushType = pushType
        self.extras = extras
    }

    /// Top-level payload keys PushRelay writes itself, so `extras` may not use them.
    public static let reservedKeys: Set<String> = ["aps", "_j_msgid", "_j_message"]

    /// JPush's `notification.voip` delivered (`PushBodyKeys.voipDelivered`): a VoIP push whose
    /// keys go at the top level of the payload beside an empty `aps`.
    static func voip(_ keys: [String: JSONValue], field: String) throws(JPushError) -> IOSNotification {
        if let reserved = CanonicalJSON.sorted(keys.keys).first(where: reservedKeys.contains) {
            throw JPushError.illegalValue("\(field) may not set \"\(reserved)\"; PushRelay writes that key itself")
        }
        return IOSNotification(pushType: .voip, extras: keys)
    }

    static func parse(_ reader: JSONObjectReader) throws(JPushError) -> IOSNotification {
        _ = try PushBodyKeys.ios.check(reader)
        var ios = IOSNotification()
        if let value = reader.fields["alert"], value != .null { ios.alert = try IOSAlert.parse(value, reader: reader) }
        if let value = reader.fields["sound"], value != .null { ios.sound = try IOSSound.parse(value, reader: reader) }
        if let value = reader.fields["badge"], value != .null {
            ios.badge = try BadgeChange.parse(value, field: reader.name("badge"))
        }
        ios.contentAvailable = try reader.optionalFlag("content-available") ?? false
        ios.mutableContent = try reader.optionalFlag("mutable-content") ?? false
        ios.category = try reader.optionalString("category")
        ios.threadID = try reader.optionalString("thread-id")
        if let level = try reader.optionalString("interruption-level") {
            guard let parsed = InterruptionLevel(rawValue: level) else {
                let known = InterruptionLevel.allCases.map(\.rawValue).joined(separator: ", ")
                throw JPushError.illegalValue("\(reader.name("interruption-level")) must be one of \(known), got \(InputEcho.quoted(level))")
            }
            ios.interruptionLevel = parsed
        }
        ios.relevanceScore = try reader.optionalNumber("relevance-score")
        if let score = ios.relevanceScore, !(0...1).contains(score) {
            throw JPushError.illegalValue("\(reader.name("relevance-score")) must be from 0 to 1, got \(score)")
        }
        ios.targetContentID = try reader.optionalString("target-content-id")
        ios.filterCriteria = try reader.optionalString("filter-criteria")
        ios.pushType = try IOSPushType.parse(reader, key: "push_type")
        ios.extras = try reader.optionalFreeObject("extras") ?? [:]
        if let reserved = CanonicalJSON.sorted(ios.extras.keys).first(where: reservedKeys.contains) {
            throw JPushError.illegalValue("\(reader.name("extras")) may not set \"\(reserved)\"; PushRelay writes that key itself")
        }
        return ios
    }
}

/// `aps.interruption-level`: how urgently iOS presents the notification.
public enum InterruptionLevel: String, Sendable, Hashable, CaseIterable {
    case passive, active
    case timeSensitive = "time-sensitive"
    case critical
}

/// An alert: a plain text, or APNs' alert dictionary.
public enum IOSAlert: Sendable, Equatable {
    case text(String)
    /// title, subtitle, body, loc-key, … already checked against APNs' keys and types.
    case dictionary([String: JSONValue])

    static let stringKeys: Set<String> = [
        "title", "subtitle", "body", "launch-image", "title-loc-key", "subtitle-loc-key", "loc-key",
        "action-loc-key", "action", "summary-arg",
    ]
    static let stringListKeys: Set<String> = ["title-loc-args", "subtitle-loc-args", "loc-args"]
    static let integerKeys: Set<String> = ["summary-arg-count"]

    static func parse(_ value: JSONValue, reader: JSONObjectReader) throws(JPushError) -> IOSAlert {
        switch value {
        case .string(let text):
            return .text(text)
        case .object:
            let alert = try JSONObjectReader(value, path: reader.name("alert") + ".")
            try alert.rejectUnknownKeys(allowed: stringKeys.union(stringListKeys).union(integerKeys))
            for key in stringKeys { _ = try alert.optionalString(key) }
            for key in stringListKeys { _ = try alert.optionalStringArray(key) }
            for key in integerKeys { _ = try alert.optionalInt(key, in: 0...Int(Int32.max)) }
            let fields = alert.fields.filter { $0.value != .null }
            guard !fields.isEmpty else {
                throw JPushError.illegalValue("\(reader.name("alert")) is an empty object; give a string or title/body/loc-key")
            }
            return .dictionary(fields)
        default:
            throw JPushError.illegalValue("\(reader.name("alert")) must be a string or an object, got \(value.typeName)")
        }
    }
}

/// A sound: a file name, or the dictionary of a critical alert sound.
public enum IOSSound: Sendable, Equatable {
    case named(String)
    /// `{"critical": 1, "name": …, "volume": 0…1}`.
    case dictionary(name: String, critical: Bool, volume: Double?)

    static func parse(_ value: JSONValue, reader: JSONObjectReader) throws(JPushError) -> IOSSound? {
        switch value {
        case .string(let name):
            // The Python SDK's sound_disable omits the key; an empty name means the same.
            return name.isEmpty ? nil : .named(name)
        case .object:
            let sound = try JSONObjectReader(value, path: reader.name("sound") + ".")
            try sound.rejectUnknownKeys(allowed: ["critical", "name", "volume"])
            let name = try sound.string("name")
            let critical = try sound.optionalFlag("critical") ?? false
            let volume = try sound.optionalNumber("volume")
            if let volume, !(0...1).contains(volume) {
                throw JPushError.illegalValue("\(sound.name("volume")) must be from 0 to 1, got \(volume)")
            }
            return .dictionary(name: name, critical: critical, volume: volume)
        default:
            throw JPushError.illegalValue("\(reader.name("sound")) must be a string or an object, got \(value.typeName)")
        }
    }
}
