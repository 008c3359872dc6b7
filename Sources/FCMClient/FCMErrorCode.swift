/// FCM's `errorCode` (the `FcmError` detail of an error answer), with the gRPC `status` as
/// a fallback when no such detail came.
public enum FCMErrorCode: Sendable, Hashable, CustomStringConvertible {
    case unspecified
    case invalidArgument
    case unregistered
    case senderIDMismatch
    case quotaExceeded
    case unavailable
    case internalError
    case thirdPartyAuthError
    /// Not an `FcmError` code: `UNAUTHENTICATED`, `PERMISSION_DENIED`, `NOT_FOUND` … as FCM spelled it.
    case other(String)

    public init(_ text: String) {
        switch text {
        case "UNSPECIFIED_ERROR", "": self = .unspecified
        case "INVALID_ARGUMENT": self = .invalidArgument
        case "UNREGISTERED": self = .unregistered
        case "SENDER_ID_MISMATCH": self = .senderIDMismatch
        case "QUOTA_EXCEEDED", "RESOURCE_EXHAUSTED": self = .quotaExceeded
        case "UNAVAILABLE": self = .unavailable
        case "INTERNAL": self = .internalError
        case "THIRD_PARTY_AUTH_ERROR": self = .thirdPartyAuthError
        default: self = .other(text)
        }
    }

    /// FCM's spelling, the reason recorded for a delivery.
    public var description: String {
        switch self {
        case .unspecified: "UNSPECIFIED_ERROR"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .unregistered: "UNREGISTERED"
        case .senderIDMismatch: "SENDER_ID_MISMATCH"
        case .quotaExceeded: "QUOTA_EXCEEDED"
        case .unavailable: "UNAVAILABLE"
        case .internalError: "INTERNAL"
        case .thirdPartyAuthError: "THIRD_PARTY_AUTH_ERROR"
        case let .other(text): text
        }
    }
}
