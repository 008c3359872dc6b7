/// The `reason` of an APNs error response, with a fallback for reasons we do not know.
public enum APNSReason: Sendable, Hashable, CustomStringConvertible {
    case badCollapseId, badDeviceToken, badExpirationDate, badMessageId, badPriority, badTopic
    case deviceTokenNotForTopic, duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken
    case missingTopic, payloadEmpty, topicDisallowed
    case badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden
    case invalidProviderToken, missingProviderToken
    case badPath, methodNotAllowed
    case expiredToken, unregistered
    case payloadTooLarge
    case tooManyProviderTokenUpdates, tooManyRequests
    case internalServerError, serviceUnavailable, shutdown
    case unknown(String)

    private static let known: [String: APNSReason] = [
        "BadCollapseId": .badCollapseId, "BadDeviceToken": .badDeviceToken,
        "BadExpirationDate": .badExpirationDate, "BadMessageId": .badMessageId,
        "BadPriority": .badPriority, "BadTopic": .badTopic,
        "DeviceTokenNotForTopic": .deviceTokenNotForTopic, "DuplicateHeaders": .duplicateHeaders,
        "IdleTimeout": .idleTimeout, "InvalidPushType": .invalidPushType,
        "MissingDeviceToken": .missingDeviceToken, "MissingTopic": .missingTopic,
        "PayloadEmpty": .payloadEmpty, "TopicDisallowed": .topicDisallowed,
        "BadCertificate": .badCertificate, "BadCertificateEnvironment": .badCertificateEnvironment,
        "ExpiredProviderToken": .expiredProviderToken, "Forbidden": .forbidden,
        "InvalidProviderToken": .invalidProviderToken, "MissingProviderToken": .missingProviderToken,
        "BadPath": .badPath, "MethodNotAllowed": .methodNotAllowed,
        "ExpiredToken": .expiredToken, "Unregistered": .unregistered,
        "PayloadTooLarge": .payloadTooLarge,
        "TooManyProviderTokenUpdates": .tooManyProviderTokenUpdates, "TooManyRequests": .tooManyRequests,
        "InternalServerError": .internalServerError, "ServiceUnavailable": .serviceUnavailable,
        "Shutdown": .shutdown,
    ]

    /// The reason for the string APNs sent.
    public init(_ string: String) {
        self = APNSReason.known[string] ?? .unknown(string)
    }

    /// The string APNs uses for this reason.
    public var description: String {
        if case let .unknown(string) = self { return string }
        return APNSReason.known.first { $0.value == self }!.key
    }
}
