import APNSClient
import CSystem

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
        // APNs takes an absent priority as 10, which background pushes may not use.
        let priority = request.priority ?? "10"
        guard priority == "10" || priority == "5" || priority == "1" else { return .badPriority }
        if request.pushType == "background", priority != "5" { return .badPriority }
        if let expiration = request.expiration, !isUnsignedInteger(expiration) { return .badExpirationDate }
        if let apnsID = request.apnsID, !isUUID(apnsID) { return .badMessageId }
        if let collapseID = request.collapseID, collapseID.utf8.count > collapseIDLimit { return .badCollapseId }
        if request.bodyLength == 0 { return .payloadEmpty }
        let limit = request.pushType == "voip" ? voipPayloadLimit : payloadLimit
        if request.bodyLength > limit { return .payloadTooLarge }
        if !JSONShape.isObjectWithAPS(request.body) { return .badPayload }
        return nil
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
