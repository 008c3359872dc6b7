import RelayCore

/// What an ActivityKit push notification does to a Live Activity (`aps.event`).
public enum LiveActivityEvent: String, Sendable, Hashable, CaseIterable {
    /// Push-to-start (iOS 17.2+): sent to the devices' push-to-start tokens of an attributes type.
    case start
    /// Sent to the activity's update tokens.
    case update, end
}

/// `alert` of a Live Activity push: what lights the screen (Apple: `title`, `body`, `sound`).
public struct LiveActivityAlert: Sendable, Equatable {
    public var title: String?
    public var body: String?
    public var sound: String?

    public init(title: String? = nil, body: String? = nil, sound: String? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
    }
}

/// A Live Activity push's content, validated: the `live_activity` object a stored push carries
/// (`PushRequest.liveActivity`), written by `LiveActivityPush` from the bodies of
/// `POST /v3/live-activities` and `POST /v3/live-activities/{activity_id}` (docs/live-activities.md).
///
/// Each field has PushRelay's snake_case name; Apple's hyphenated `aps` name (`content-state`,
/// `attributes-type`, `stale-date`, `dismissal-date`, `relevance-score`) is accepted for it too.
public struct LiveActivityContent: Sendable, Equatable {
    public var event: LiveActivityEvent
    /// The app's name for the activity: its update tokens are registered under it.
    public var activityID: String
    /// The ActivityAttributes type a start creates (`aps.attributes-type`); start only.
    public var attributesType: String?
    /// The activity's static attributes (`aps.attributes`); start only.
    public var attributes: [String: JSONValue]?
    /// The ContentState the activity shows (`aps.content-state`), decoded by the app as is.
    public var contentState: [String: JSONValue]
    public var alert: LiveActivityAlert?
    /// Unix seconds after which the system marks the activity stale (`aps.stale-date`).
    public var staleDate: Int?
    /// Unix seconds when an ended activity leaves the Lock Screen (`aps.dismissal-date`); end only.
    public var dismissalDate: Int?
    /// From 0 to 1: which of the app's activities the Dynamic Island shows (`aps.relevance-score`).
    public var relevanceScore: Double?

    public init(event: LiveActivityEvent, activityID: String, attributesType: String? = nil, attributes: [String: JSONValue]? = nil,
                contentState: [String: JSONValue], alert: LiveActivityAlert? = nil, staleDate: Int? = nil, dismissalDate: Int? = nil,
                relevanceScore: Double? = nil) {
        self.event = event
        self.activityID = activityID
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.alert = alert
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
    }

    /// The content's own keys (each beside its Apple spelling, `appleNames`).
    public static let fields: Set<String> = [
        "event", "activity_id", "attributes_type", "attributes", "content_state", "alert", "stale_date", "dismissal_date", "relevance_score",
    ]
    /// Apple's `aps` spelling of a field, accepted in its place.
    static let appleNames = [
        "attributes_type": "attributes-type", "content_state": "content-state", "stale_date": "stale-date",
        "dismissal_date": "dismissal-date", "relevance_score": "relevance-score",
    ]

    /// Activity ids travel in paths (`/v3/live-activities/{activity_id}`): 1 to 128 of
    /// `A-Z a-z 0-9 . _ ~ : -`, never a route's own word.
    public static let activityIDBytes = 128
    public static let reservedActivityIDs: Set<String> = ["channels", "start-tokens"]

    /// Validates an activity id (from a path or a body).
    ///
    /// - Throws: 1003 naming `field`.
    public static func checkActivityID(_ id: String, field: String) throws(JPushError) {
        guard !id.isEmpty, id.utf8.count <= activityIDBytes, id.utf8.allSatisfy(Self.isIDByte) else {
            throw JPushError.illegalValue(
                "\(field) must be 1 to \(activityIDBytes) characters of A-Z, a-z, 0-9, '.', '_', '~', ':' and '-', got \(InputEcho.quoted(id))")
        }
        guard !reservedActivityIDs.contains(id) else {
            throw JPushError.illegalValue("\(field) may not be \(InputEcho.quoted(id)): the word names a route of its own")
        }
    }

    /// Validates an attributes type: the Swift type's name, 1 to 128 of `A-Z a-z 0-9 _ .`.
    ///
    /// - Throws: 1003 naming `field`.
    public static func checkAttributesType(_ type: String, field: String) throws(JPushError) {
        guard !type.isEmpty, type.utf8.count <= 128,
              type.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") })
        else {
            throw JPushError.illegalValue("\(field) must be the ActivityAttributes type's name (1 to 128 of A-Z, a-z, 0-9, '_' and '.'), got \(InputEcho.quoted(type))")
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || [UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "-")].contains(byte)
    }

    /// Parses the content from `reader`, whose other keys the caller checks.
    ///
    /// - Parameters:
    ///   - activityID: the id from the path (`POST /v3/live-activities/{activity_id}`), which
    ///     a body's `activity_id` may repeat but not contradict; nil when the body gives it.
    /// - Throws: 1002 for a missing field (`event`, `content_state`, a start's `activity_id`,
    ///   `attributes_type` and `attributes`), 1003 for a wrong value or a field the event
    ///   does not take.
    public static func parse(_ reader: JSONObjectReader, activityID given: String?) throws(JPushError) -> LiveActivityContent {
        func key(_ name: String) throws(JPushError) -> String {
            guard let apple = appleNames[name], reader.has(apple) else { return name }
            if reader.has(name) {
                throw JPushError.illegalValue("give \(reader.name(name)) or \(reader.name(apple)), not both")
            }
            return apple
        }
        guard let eventText = try reader.optionalString("event") else {
            throw JPushError.missingParameter("\(reader.name("event")) is required: start, update or end")
        }
        guard let event = LiveActivityEvent(rawValue: eventText) else {
            throw JPushError.illegalValue("\(reader.name("event")) must be start, update or end, got \(InputEcho.quoted(eventText))")
        }
        let bodyID = try reader.optionalString("activity_id")
        if let bodyID { try checkActivityID(bodyID, field: reader.name("activity_id")) }
        if let given, let bodyID, bodyID != given {
            throw JPushError.illegalValue("\(reader.name("activity_id")) \(InputEcho.quoted(bodyID)) is not the path's activity \(InputEcho.quoted(given))")
        }
        guard let activityID = given ?? bodyID else {
            throw JPushError.missingParameter("\(reader.name("activity_id")) is required: the name the devices register the activity's update tokens under")
        }
        let stateKey = try key("content_state")
        guard let contentState = try reader.optionalFreeObject(stateKey) else {
            throw JPushError.missingParameter("\(reader.name("content_state")) is required: the activity's ContentState as a JSON object")
        }
        var content = LiveActivityContent(event: event, activityID: activityID, contentState: contentState)
        let typeKey = try key("attributes_type")
        content.attributesType = try reader.optionalString(typeKey)
        content.attributes = try reader.optionalFreeObject("attributes")
        if event == .start {
            guard let type = content.attributesType else {
                throw JPushError.missingParameter("\(reader.name("attributes_type")) is required to start an activity: the ActivityAttributes type's name")
            }
            try checkAttributesType(type, field: reader.name(typeKey))
            guard content.attributes != nil else {
                throw JPushError.missingParameter("\(reader.name("attributes")) is required to start an activity: its static attributes as a JSON object")
            }
        } else if content.attributesType != nil || content.attributes != nil {
            throw JPushError.illegalValue("\(reader.name("attributes_type")) and \(reader.name("attributes")) belong to a start; an \(event.rawValue) changes the content state only")
        }
        content.alert = try alert(reader.optionalObject("alert"))
        content.staleDate = try reader.optionalInt(try key("stale_date"), in: 0...maxUnixSeconds)
        let dismissalKey = try key("dismissal_date")
        content.dismissalDate = try reader.optionalInt(dismissalKey, in: 0...maxUnixSeconds)
        if content.dismissalDate != nil, event != .end {
            throw JPushError.illegalValue("\(reader.name(dismissalKey)) belongs to an end event: it says when the ended activity leaves the Lock Screen")
        }
        let scoreKey = try key("relevance_score")
        if let score = try reader.optionalNumber(scoreKey) {
            guard score >= 0, score <= 1 else { throw JPushError.illegalValue("\(reader.name(scoreKey)) must be from 0 to 1, got \(score)") }
            content.relevanceScore = score
        }
        return content
    }

    /// Dates are Unix seconds with at most ten digits.
    static let maxUnixSeconds = 9_999_999_999

    private static func alert(_ reader: JSONObjectReader?) throws(JPushError) -> LiveActivityAlert? {
        guard let reader else { return nil }
        try reader.rejectUnknownKeys(allowed: ["title", "body", "sound"])
        let alert = LiveActivityAlert(title: try reader.optionalString("title"), body: try reader.optionalString("body"),
                                      sound: try reader.optionalString("sound"))
        guard alert.title != nil || alert.body != nil else {
            throw JPushError.missingParameter("\(reader.path)title or \(reader.path)body is required in an alert")
        }
        return alert
    }

    /// The content as the `live_activity` object of a stored push (PushRelay's names), which
    /// `parse` reads back to the same value.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "event": .string(event.rawValue), "activity_id": .string(activityID), "content_state": .object(contentState),
        ]
        if let attributesType { object["attributes_type"] = .string(attributesType) }
        if let attributes { object["attributes"] = .object(attributes) }
        if let alert { object["alert"] = alert.json }
        if let staleDate { object["stale_date"] = .int(Int64(staleDate)) }
        if let dismissalDate { object["dismissal_date"] = .int(Int64(dismissalDate)) }
        if let relevanceScore { object["relevance_score"] = .double(relevanceScore) }
        return .object(object)
    }
}

extension LiveActivityAlert {
    var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let title { object["title"] = .string(title) }
        if let body { object["body"] = .string(body) }
        if let sound { object["sound"] = .string(sound) }
        return .object(object)
    }
}
