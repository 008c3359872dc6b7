import RelayCore

/// Builds the APNs request of a Live Activity push (Apple, "Starting and updating Live
/// Activities with ActivityKit push notifications"; docs/apns.md):
/// `apns-push-type: liveactivity`, `apns-topic: <bundle id>.push-type.liveactivity`, and
/// ```
/// {"aps":{"alert":{…},"attributes":{…},"attributes-type":"…","content-state":{…},
///         "dismissal-date":…,"event":"start|update|end","input-push-token":1,
///         "relevance-score":…,"stale-date":…,"timestamp":…}}
/// ```
/// `timestamp` is when the push was accepted (Unix seconds), the same on every retry: the
/// device drops an update older than the one it shows. A start carries `attributes-type`,
/// `attributes` and `input-push-token: 1` (the started activity reports an update token).
public enum LiveActivityPayloadBuilder {
    /// What `apns-topic` adds to the bundle id.
    public static let topicSuffix = ".push-type.liveactivity"
    /// `apns-push-type`.
    public static let pushType = "liveactivity"
    /// The largest payload APNs takes for a Live Activity push.
    public static let payloadBytes = 4096

    /// The `apns-priority`: `options.apns_priority` (5 or 10), else 10 for a start and 5 for an
    /// update or end — priority 10 counts against the device's ActivityKit budget, 5 does not.
    ///
    /// - Throws: 1003 for priority 1 (APNs takes Live Activity pushes at 5 or 10 only).
    public static func priority(_ event: LiveActivityEvent, asked: Int?) throws(JPushError) -> Int {
        guard let asked else { return event == .start ? 10 : 5 }
        guard asked == 5 || asked == 10 else {
            throw JPushError.illegalValue("options.apns_priority \(asked) is not allowed for Live Activity pushes: APNs takes them at priority 5 or 10 only")
        }
        return asked
    }

    /// The payload's bytes (keys sorted).
    ///
    /// - Parameters:
    ///   - timestamp: Unix seconds, `aps.timestamp`.
    ///   - limit: the most bytes the request takes: `payloadBytes` to a token, 5120 for a
    ///     channel's broadcast.
    /// - Throws: 1005 when it exceeds `limit` (checked with a ten-digit timestamp, so a
    ///   content that passes once passes at any time).
    public static func payload(_ content: LiveActivityContent, timestamp: Int, limit: Int = payloadBytes) throws(JPushError) -> [UInt8] {
        var aps: [String: JSONValue] = [
            "timestamp": .int(Int64(timestamp)), "event": .string(content.event.rawValue), "content-state": .object(content.contentState),
        ]
        if let type = content.attributesType { aps["attributes-type"] = .string(type) }
        if let attributes = content.attributes { aps["attributes"] = .object(attributes) }
        if content.event == .start { aps["input-push-token"] = .int(1) }
        if let alert = content.alert { aps["alert"] = alert.json }
        if let stale = content.staleDate { aps["stale-date"] = .int(Int64(stale)) }
        if let dismissal = content.dismissalDate { aps["dismissal-date"] = .int(Int64(dismissal)) }
        if let score = content.relevanceScore { aps["relevance-score"] = .double(score) }
        let bytes = CanonicalJSON.bytes(.object(["aps": .object(aps)]))
        let worst = bytes.count + max(0, 10 - String(timestamp).utf8.count)
        guard worst <= limit else {
            throw JPushError(status: 400, code: 1005,
                             message: "the Live Activity payload would be \(worst) bytes; at most \(limit) are allowed — shorten content_state, attributes or alert")
        }
        return bytes
    }

    /// A message's Live Activity notification for all its devices (`APNSPayloadBuilder.prepare`
    /// hands a push with `live_activity` here).
    ///
    /// - Parameters:
    ///   - topic: the app's bundle id.
    ///   - acceptedAt: Unix seconds the push was accepted: `aps.timestamp`, and where
    ///     `time_to_live` counts from.
    public static func prepare(_ content: LiveActivityContent, options: PushOptions, msgID: MessageID, topic: String, acceptedAt: Int,
                               collapseID: String?) throws(JPushError) -> PreparedNotification {
        let payload = try payload(content, timestamp: acceptedAt)
        let ttl = options.timeToLive
        return PreparedNotification(
            msgID: msgID, pushType: pushType, priority: try priority(content.event, asked: options.apnsPriority), topic: topic + topicSuffix,
            expiration: ttl == 0 ? 0 : acceptedAt + ttl, collapseID: collapseID ?? CollapseID.of(options, msgID: msgID, overridden: nil),
            badge: nil, maxPayloadSize: payload.count, head: payload, tail: [])
    }
}
