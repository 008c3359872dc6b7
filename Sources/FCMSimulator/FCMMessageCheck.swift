import RelayCore

/// What FCM HTTP v1 refuses in a `messages:send` body before looking at the token's device:
/// the shape, the target, `data` values that are not strings, reserved data keys, a payload
/// (notification + data) over 4096 bytes, a bad `android.ttl` or `android.priority`.
enum FCMMessageCheck {
    static let maxPayload = 4096
    static let maxTTLSeconds = 2_419_200

    /// - Returns: the registration token, or the refusal (a message, and the field FCM names).
    static func check(_ body: [UInt8]) -> Result<String, FCMRefusal> {
        guard case let .object(root)? = try? JSONValue.parse(body), case let .object(message)? = root["message"] else {
            return .failure(FCMRefusal("Invalid JSON payload received. Expected a \"message\" object.", field: "message"))
        }
        let targets = ["token", "topic", "condition"].filter { message[$0] != nil }
        guard targets == ["token"], case let .string(token)? = message["token"], !token.isEmpty else {
            return .failure(FCMRefusal("The message must have exactly one target: token (topic and condition are not simulated).",
                                       field: "message.token"))
        }
        let android = if case let .object(fields)? = message["android"] { fields } else { [String: JSONValue]() }
        for (path, data) in [("message.data", message["data"]), ("message.android.data", android["data"])] {
            if let refusal = checkData(data, path: path) { return .failure(refusal) }
        }
        let payload = [message["notification"], message["data"], android["notification"], android["data"]]
            .compactMap { $0 }
            .reduce(0) { $0 + CanonicalJSON.bytes($1).count }
        if payload > maxPayload {
            return .failure(FCMRefusal("Message is too big: \(payload) bytes of notification and data, the limit is \(maxPayload)",
                                       field: "message"))
        }
        if let ttl = android["ttl"], !isTTL(ttl) {
            return .failure(FCMRefusal("Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration)",
                                       field: "message.android.ttl"))
        }
        if let priority = android["priority"], priority != .string("NORMAL"), priority != .string("HIGH") {
            return .failure(FCMRefusal("Invalid value at 'message.android.priority'", field: "message.android.priority"))
        }
        return .success(token)
    }

    private static func checkData(_ data: JSONValue?, path: String) -> FCMRefusal? {
        guard let data else { return nil }
        guard case let .object(map) = data else { return FCMRefusal("Invalid value at '\(path)'", field: path) }
        for (index, key) in map.keys.sorted().enumerated() {
            guard case .string = map[key] else {
                return FCMRefusal("Invalid value at '\(path)[\(index)].value' (TYPE_STRING)", field: "\(path)[\(index)].value")
            }
            let lower = key.lowercased()
            if ["from", "notification", "message_type"].contains(lower) || lower.hasPrefix("google") || lower.hasPrefix("gcm") {
                return FCMRefusal("Invalid data payload key: \(key)", field: "\(path)[\(index)].key")
            }
        }
        return nil
    }

    /// `"3600s"`, `"0.5s"`: a protobuf Duration of at most 28 days.
    private static func isTTL(_ value: JSONValue) -> Bool {
        guard case let .string(text) = value, text.hasSuffix("s"), let seconds = Double(text.dropLast()) else { return false }
        return seconds >= 0 && seconds <= Double(maxTTLSeconds)
    }
}

/// A 400 INVALID_ARGUMENT about the message, with the field FCM's `BadRequest` detail names.
struct FCMRefusal: Error, Sendable, Equatable {
    var message: String
    var field: String

    init(_ message: String, field: String) {
        self.message = message
        self.field = field
    }
}
