import RelayCore

/// The bodies of `POST /v3/live-activities` (a start) and `POST /v3/live-activities/{activity_id}`
/// (an update or end), turned into the push PushRelay stores and sends: a push body whose
/// `live_activity` object holds the content (`LiveActivityContent`), which the pipeline reads
/// back like any push (`PushRequest.liveActivity`).
///
/// A start: `{event: "start", activity_id, audience, attributes_type, attributes, content_state,
/// alert?, stale_date?, relevance_score?, options?, cid?}`. An update or end: `{event,
/// content_state, alert?, stale_date?, dismissal_date? (end), relevance_score?, options?, cid?}`;
/// its audience is every device holding an update token of the activity.
public struct LiveActivityPush: Sendable, Equatable {
    /// The validated push (`liveActivity` set).
    public var request: PushRequest
    /// The push body to store (`MessageStore.accept`): what workers parse again.
    public var body: [UInt8]

    /// A `/v3/push` body with `live_activity` in PushRelay's shape (`request` parsed from
    /// it): stored with the content under PushRelay's names, which the pipeline's statements
    /// read (Apple's hyphenated spellings are accepted in the request only).
    public init(pushBody body: [UInt8], request: PushRequest) throws(JPushError) {
        guard let content = request.liveActivity, case .object(var object) = try JSONValue.parse(body) else {
            throw JPushError.missingParameter("live_activity is required")
        }
        object["live_activity"] = content.json
        self.request = request
        self.body = CanonicalJSON.bytes(.object(object))
    }

    init(request: PushRequest, body: [UInt8]) {
        self.request = request
        self.body = body
    }

    /// Keys of a start's body beside the content's.
    static let startKeys: Set<String> = ["audience", "platform", "options", "cid"]
    /// Keys of an update's or end's body beside the content's.
    static let changeKeys: Set<String> = ["options", "cid"]

    /// Parses a start's body (`POST /v3/live-activities`).
    ///
    /// - Throws: `JPushError` naming the field: 1002 missing, 1003 illegal (an event other
    ///   than start), 1005 payload too large, 1009 unknown key.
    public static func start(_ body: [UInt8]) throws(JPushError) -> LiveActivityPush {
        let reader = try JSONObjectReader(body)
        let content = try parse(reader, activityID: nil, other: startKeys)
        guard content.event == .start else {
            throw JPushError.illegalValue("event \(content.event.rawValue) goes to POST /v3/live-activities/{activity_id}; this route starts activities")
        }
        guard let audience = reader.fields["audience"] else {
            throw JPushError.missingParameter("audience is required: the devices whose push-to-start token of the attributes type starts the activity")
        }
        return try stored(content, audience: audience, platform: reader.fields["platform"], reader)
    }

    /// Parses an update's or end's body (`POST /v3/live-activities/{activity_id}`).
    ///
    /// - Throws: like `start`; 1003 for a start here, or an activity id in the path that is not one.
    public static func change(_ body: [UInt8], activityID: String) throws(JPushError) -> LiveActivityPush {
        try LiveActivityContent.checkActivityID(activityID, field: "activity_id (in the path)")
        let reader = try JSONObjectReader(body)
        // Before the content's checks, which would ask for a start's fields.
        guard try reader.optionalString("event") != LiveActivityEvent.start.rawValue else {
            throw JPushError.illegalValue("event start goes to POST /v3/live-activities with an audience; this route updates or ends activity \(InputEcho.quoted(activityID))")
        }
        let content = try parse(reader, activityID: activityID, other: changeKeys)
        return try stored(content, audience: .string("all"), platform: nil, reader)
    }

    private static func parse(_ reader: JSONObjectReader, activityID: String?, other: Set<String>) throws(JPushError) -> LiveActivityContent {
        try reader.rejectUnknownKeys(allowed: other.union(LiveActivityContent.fields).union(LiveActivityContent.appleNames.values))
        return try LiveActivityContent.parse(reader, activityID: activityID)
    }

    /// The stored push body, validated as a push (audience, options, cid, payload size).
    private static func stored(_ content: LiveActivityContent, audience: JSONValue, platform: JSONValue?,
                               _ reader: JSONObjectReader) throws(JPushError) -> LiveActivityPush {
        var object: [String: JSONValue] = ["platform": platform ?? .string("ios"), "audience": audience, "live_activity": content.json]
        for key in ["options", "cid"] { if let value = reader.fields[key] { object[key] = value } }
        let json = JSONValue.object(object)
        return LiveActivityPush(request: try PushRequest(json: json), body: CanonicalJSON.bytes(json))
    }
}
