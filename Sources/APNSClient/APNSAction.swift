import Foundation

/// What the sender should do after a `send`: the response table of the APNs contract as code.
public enum APNSAction: Sendable, Hashable {
    /// Count the notification as sent.
    case sent
    /// The token is dead: stop using it, unless the device registered again after `since`.
    case invalidateToken(since: Date?)
    /// Our bug or bad input: fail this delivery with the reason, never retry.
    case failPermanently(APNSReason)
    /// Make a new provider token (respecting the 20-minute floor) and send again.
    case refreshTokenAndRetry
    /// The app's credentials are wrong: pause its deliveries and mark the credential broken.
    case credentialsBroken(APNSReason)
    /// Send this device again later, with backoff and jitter.
    case retryWithBackoff
    /// Send again on another or a new connection, with backoff (the server is shutting down).
    case retryOnNewConnection
    /// Keep the current provider token; send again later.
    case keepTokenRetryLater
    /// Fail this message: it can never be sent as it is.
    case failMessage(String)

    /// The action for a result.
    public init(for result: APNSResult) {
        switch result {
        case .accepted:
            self = .sent
        case let .rejected(status, reason, timestamp):
            self = APNSAction.forRejection(status: status, reason: reason, timestamp: timestamp)
        case let .failed(failure):
            switch failure {
            case .invalid(let error): self = .failMessage(error.description)
            case .refused: self = .failMessage(failure.description)
            case .expired: self = .failMessage(failure.description)
            case .connectionFailed, .timedOut, .shutdown: self = .retryWithBackoff
            }
        }
    }

    private static func forRejection(status: Int, reason: APNSReason, timestamp: Date?) -> APNSAction {
        switch (status, reason) {
        case (400, .badDeviceToken), (400, .deviceTokenNotForTopic):
            return .invalidateToken(since: nil)
        case (403, .expiredProviderToken):
            return .refreshTokenAndRetry
        case (403, _):
            return .credentialsBroken(reason)
        case (410, _):
            return .invalidateToken(since: timestamp)
        case (413, _):
            return .failMessage("PayloadTooLarge")
        case (429, .tooManyProviderTokenUpdates):
            return .keepTokenRetryLater
        case (429, _):
            return .retryWithBackoff
        case (503, .shutdown):
            return .retryOnNewConnection
        case (500..., _):
            return .retryWithBackoff
        default:
            // 400 (the rest), 404, 405 and anything else: a request APNs will never take.
            return .failPermanently(reason)
        }
    }
}

/// The action for a result; see `APNSAction.init(for:)`.
public func action(for result: APNSResult) -> APNSAction {
    APNSAction(for: result)
}
