import APNSClient

/// What the pipeline does with a device after a `send`: FCM's error table as code
/// (docs/fcm.md). The client has already refreshed its access token once on a 401 and
/// waited out nothing: retries are the caller's, after `retry(after:)`.
public enum FCMAction: Sendable, Hashable {
    /// Count the message as sent.
    case sent
    /// The registration token is dead or malformed: mark the device inactive.
    case invalidateToken(reason: String)
    /// Send this device again later: not before `after` seconds when FCM said so (`Retry-After`), else with backoff.
    case retry(after: Double?)
    /// The service account is refused: pause the app's FCM deliveries and mark the credential broken.
    case credentialsBroken(reason: String)
    /// This message can never be sent as it is (payload errors, refused before sending, expired).
    case failMessage(reason: String)

    public init(for result: FCMResult) {
        switch result {
        case .accepted:
            self = .sent
        case let .rejected(status, error, message, tokenProblem, retryAfter):
            self = FCMAction.forRejection(status: status, error: error, message: message, tokenProblem: tokenProblem, retryAfter: retryAfter)
        case let .failed(failure):
            switch failure {
            case let .accessToken(detail, broken: true): self = .credentialsBroken(reason: detail)
            case .accessToken, .transport(.connectionFailed), .transport(.timedOut), .transport(.shutdown): self = .retry(after: nil)
            case .invalid(.badToken): self = .invalidateToken(reason: "InvalidRegistration")
            case .transport(.expired): self = .failMessage(reason: "Expired")
            case .invalid, .transport(.refused), .transport(.invalid): self = .failMessage(reason: failure.description)
            }
        }
    }

    private static func forRejection(status: Int, error: FCMErrorCode, message: String, tokenProblem: Bool,
                                     retryAfter: Double?) -> FCMAction {
        switch (status, error) {
        case (404, _), (_, .unregistered):
            return .invalidateToken(reason: "UNREGISTERED")
        case (403, .senderIDMismatch):
            return .invalidateToken(reason: "SENDER_ID_MISMATCH")
        case (400, _) where tokenProblem:
            return .invalidateToken(reason: "INVALID_ARGUMENT")
        case (401, _), (403, _):
            // Still refused after the client's one refresh: the service account is wrong, or
            // lacks the Firebase messaging permission, or (via FCM) an APNs credential is.
            return .credentialsBroken(reason: message.isEmpty ? error.description : "\(error): \(message)")
        case (429, _), (500..., _):
            return .retry(after: retryAfter)
        default:
            // 400 about the payload, 413 and anything else: FCM will never take it as it is.
            return .failMessage(reason: message.isEmpty ? error.description : "\(error): \(message)")
        }
    }
}
