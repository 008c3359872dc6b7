/// A reason APNs gives for refusing a notification, with the status it comes with.
///
/// The raw values are APNs' own spellings, as they appear in `{"reason":"…"}`.
public enum APNSReason: String, Error, Sendable, CaseIterable, Hashable {
    case badCollapseId = "BadCollapseId"
    case badDeviceToken = "BadDeviceToken"
    case badExpirationDate = "BadExpirationDate"
    case badMessageId = "BadMessageId"
    case badPriority = "BadPriority"
    case duplicateHeaders = "DuplicateHeaders"
    case invalidPushType = "InvalidPushType"
    case missingDeviceToken = "MissingDeviceToken"
    case missingTopic = "MissingTopic"
    case payloadEmpty = "PayloadEmpty"
    /// Not one of APNs' documented reasons: the simulator's answer to a body that is not a
    /// JSON object with an `aps` dictionary, which APNs would not deliver either.
    case badPayload = "BadPayload"
    case expiredProviderToken = "ExpiredProviderToken"
    case invalidProviderToken = "InvalidProviderToken"
    case missingProviderToken = "MissingProviderToken"
    case badPath = "BadPath"
    case methodNotAllowed = "MethodNotAllowed"
    case unregistered = "Unregistered"
    case payloadTooLarge = "PayloadTooLarge"
    case tooManyRequests = "TooManyRequests"
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    case internalServerError = "InternalServerError"
    case serviceUnavailable = "ServiceUnavailable"

    /// The HTTP status APNs answers this reason with.
    public var status: Int {
        switch self {
        case .expiredProviderToken, .invalidProviderToken, .missingProviderToken: 403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .unregistered: 410
        case .payloadTooLarge: 413
        case .tooManyRequests, .tooManyProviderTokenUpdates: 429
        case .internalServerError: 500
        case .serviceUnavailable: 503
        default: 400
        }
    }
}

/// What the simulator answers one request with.
public struct APNSResponse: Sendable, Equatable {
    /// `nil` for 200.
    public var reason: APNSReason?
    /// Milliseconds since the epoch; only for 410, when APNs learnt the token was dead.
    public var timestamp: Int64?

    public static let accepted = APNSResponse(reason: nil, timestamp: nil)

    public init(reason: APNSReason?, timestamp: Int64? = nil) {
        self.reason = reason
        self.timestamp = timestamp
    }

    public var status: Int { reason?.status ?? 200 }

    /// `{"reason":"…"}` (plus `"timestamp"` for 410), or empty for 200.
    public var body: [UInt8] {
        guard let reason else { return [] }
        if let timestamp {
            return Array("{\"reason\":\"\(reason.rawValue)\",\"timestamp\":\(timestamp)}".utf8)
        }
        return Array("{\"reason\":\"\(reason.rawValue)\"}".utf8)
    }
}
