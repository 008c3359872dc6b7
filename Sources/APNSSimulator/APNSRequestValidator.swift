import APNSClient
import CSystem
import RelayCore

/// APNs' request rules as pure functions: what a request must look like before APNs
/// considers delivering it. Provider authentication is checked separately
/// (`ProviderTokenVerifier`), between the path and the rest.
public enum APNSRequestValidator {
    public static let payloadLimit = 4096
    public static let voipPayloadLimit = 5120
    public static let collapseIDLimit = 64
    public static let pushTypes: Set<String> = [
        "alert", "background", "location", "voip", "complication", "fileprovider", "mdm",
        "liveactivity", "pushtotalk",
    ]

    /// What `apns-topic` must add to the bundle id for each push type (Apple, "Sending
    /// notification requests to APNs"); alert and background pushes use the bare bundle id,
    /// an MDM push its certificate's topic.
    public static let topicSuffixes: [String: String] = [
        "voip": ".voip", "location": ".location-query", "complication": ".complication",
        "fileprovider": ".pushkit.fileprovider", "liveactivity": ".push-type.liveactivity", "pushtotalk": ".voip-ptt",
    ]

    /// The priorities a push type may use where Apple restricts them: background pushes
    /// "always use priority 5", Push to Talk 10, Live Activities 5 or 10.
    public static let priorities: [String: Set<String>] = [
        "background": ["5"], "pushtotalk": ["10"], "liveactivity": ["5", "10"],
    ]

    /// The device token named by the method and path, or why there is none.
    ///
    /// `POST /3/device/<token>` only: another method is 405, another path 404, an empty
    /// token 400 MissingDeviceToken, a token that is not even-length hex of 64–200 characters
    /// 400 BadDeviceToken.
    public static func deviceToken(method: String, path: String) -> Result<String, APNSReason> {
        guard method == "POST" else { return .failure(.methodNotAllowed) }
        // On the contiguous UTF-8 bytes: this runs per request, and generic String and
        // Substring views are several times slower.
        var path = path
        return path.withUTF8 { bytes in
            let prefix: StaticString = "/3/device/"
            let prefixLength = prefix.utf8CodeUnitCount
            guard bytes.count >= prefixLength, memcmp(bytes.baseAddress!, prefix.utf8Start, prefixLength) == 0 else {
                return .failure(.badPath)
            }
            var end = prefixLength
            while end < bytes.count, bytes[end] != UInt8(ascii: "?") {
                // A query string is not part of the token; a further segment is another path.
                if bytes[end] == UInt8(ascii: "/") { return .failure(.badPath) }
                end += 1
            }
            let token = UnsafeBufferPointer(rebasing: bytes[prefixLength..<end])
            guard !token.isEmpty else { return .failure(.missingDeviceToken) }
            guard isDeviceToken(token) else { return .failure(.badDeviceToken) }
            return .success(String(decoding: token, as: UTF8.self))
        }
    }

    /// Even-length hexadecimal, 64 to 200 characters.
    public static func isDeviceToken(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
        guard (64...200).contains(token.count), token.count % 2 == 0 else { return false }
        return token.allSatisfy(isHexDigit)
    }

    /// The first rule the headers and body break, in APNs' order, or `nil` when they
    /// are fine.
    public static func headersAndPayload(_ request: APNSRequest) -> APNSReason? {
        if request.hasDuplicateHeader { return .duplicateHeaders }
        guard let topic = request.topic, !topic.isEmpty else { return .missingTopic }
        if let pushType = request.pushType, !pushTypes.contains(pushType) { return .invalidPushType }
        if !topicFits(topic, pushType: request.pushType) { return .badTopic }
        // APNs takes an absent priority as 10, which background pushes may not use.
        let priority = request.priority ?? "10"
        guard priority == "10" || priority == "5" || priority == "1" else { return .badPriority }
        if let pushType = request.pushType, let allowed = priorities[pushType], !allowed.contains(priority) { return .badPriority }
        if let expiration = request.expiration, !isUnsignedInteger(expiration) { return .badExpirationDate }
        if let apnsID = request.apnsID, !isUUID(apnsID) { return .badMessageId }
        if let collapseID = request.collapseID, collapseID.utf8.count > collapseIDLimit { return .badCollapseId }
        if request.bodyLength == 0 { return .payloadEmpty }
        let limit = request.pushType == "voip" ? voipPayloadLimit : payloadLimit
        if request.bodyLength > limit { return .payloadTooLarge }
        if !JSONShape.isObjectWithAPS(request.body) { return .badPayload }
        if request.pushType == "background", !isBackgroundPayload(request.body) { return .invalidPushType }
        if request.pushType == "liveactivity", let reason = LiveActivityPayloadCheck.reason(request.body) { return reason }
        return nil
    }

    /// Whether `topic` carries the push type's suffix (`topicSuffixes`), and only then a
    /// suffix of another push type: an alert to `<bundle>.voip` is as wrong as a VoIP push
    /// to `<bundle>`.
    public static func topicFits(_ topic: String, pushType: String?) -> Bool {
        if pushType == "mdm" { return true }
        if let suffix = pushType.flatMap({ topicSuffixes[$0] }) {
            return topic.hasSuffix(suffix) && topic.utf8.count > suffix.utf8.count
        }
        return !topicSuffixes.values.contains(where: topic.hasSuffix)
    }

    /// What a background push's payload must be: `aps` with `content-available: 1` and no
    /// alert, sound or badge. Apple: the push type "must accurately reflect the contents of
    /// your notification's payload"; the simulator answers a mismatch InvalidPushType. Only
    /// background pushes are parsed here, so alerts (what benchmarks send) stay cheap.
    static func isBackgroundPayload(_ body: [UInt8]) -> Bool {
        guard case .object(let top)? = try? JSONValue.parse(body), case .object(let aps)? = top["aps"] else { return false }
        guard case .number(let flag)? = aps["content-available"], flag.int64 == 1 else { return false }
        return aps["alert"] == nil && aps["sound"] == nil && aps["badge"] == nil
    }

    /// `8-4-4-4-12` hexadecimal digits, either case.
    public static func isUUID(_ value: String) -> Bool {
        let utf8 = Array(value.utf8)
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !isHexDigit(byte) {
                return false
            }
        }
        return true
    }

    static func isUnsignedInteger(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 19 && value.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 97 && byte <= 102) || (byte >= 65 && byte <= 70)
    }
}

extension APNSReason {
    /// Not one of APNs' documented reasons: the simulator's answer (400) to a body that is not
    /// a JSON object with an `aps` dictionary, which APNs would not deliver either.
    public static let badPayload = APNSReason.unknown("BadPayload")
}
