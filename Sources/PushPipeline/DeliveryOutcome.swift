import APNSClient
import FCMClient
import Foundation

/// The outcome recorded for one (message, device), as the `deliveries` table spells it (`sent`
/// is recorded in `delivery_spans` instead).
public enum DeliveryOutcome: String, Sendable, Hashable, CaseIterable {
    /// Accepted by APNs.
    case sent
    /// Refused for good (the reason says why), or not sendable (no credential, …).
    case failed
    /// The token is dead and the device was marked inactive.
    case invalidated
    /// The message's expiration passed before APNs took it.
    case expired
    /// Withdrawn before it was sent.
    case withdrawn
}

/// What to do with one device after one attempt: the APNs contract's table (`APNSAction`)
/// and FCM's (`FCMAction`) turned into the pipeline's terms.
public enum DeliveryStep: Sendable, Hashable {
    /// Record this outcome (with an APNs reason or one of ours) and stop.
    case record(DeliveryOutcome, reason: String?)
    /// The token is dead: invalidate it unless the device registered again after `since`
    /// (then the outcome is `failed` with the reason).
    case invalidate(reason: String, since: Date?)
    /// Send again later, with backoff.
    case retry
    /// Send again later, with backoff but not before this (FCM's `Retry-After`).
    case retryNotBefore(Duration)
    /// The app's credential was refused: stop sending with it, keep the device for later.
    case credentialBroken(reason: String)

    public init(_ result: APNSResult) {
        if case .failed(.expired) = result {
            self = .record(.expired, reason: "Expired")
            return
        }
        let reason: String? = if case let .rejected(_, reason, _) = result { reason.description } else { nil }
        switch APNSAction(for: result) {
        case .sent:
            self = .record(.sent, reason: nil)
        case .invalidateToken(let since):
            self = .invalidate(reason: reason ?? "Unregistered", since: since)
        case .failPermanently(let apnsReason):
            self = .record(.failed, reason: apnsReason.description.isEmpty ? "Unknown" : apnsReason.description)
        case .failMessage(let text):
            self = .record(.failed, reason: reason ?? text)
        case .credentialsBroken(let apnsReason):
            self = .credentialBroken(reason: apnsReason.description)
        case .refreshTokenAndRetry, .retryWithBackoff, .retryOnNewConnection, .keepTokenRetryLater:
            self = .retry
        }
    }
}

extension DeliveryStep {
    /// FCM's answer: a dead or malformed token (`UNREGISTERED`, `INVALID_ARGUMENT` about the
    /// token, `SENDER_ID_MISMATCH`) is invalidated unless the device registered again after
    /// the send (FCM gives no timestamp); a refused service account pauses the app's Android
    /// chunks; payload errors fail the device with FCM's reason.
    public init(_ result: FCMResult) {
        if case .failed(.transport(.expired)) = result {
            self = .record(.expired, reason: "Expired")
            return
        }
        switch FCMAction(for: result) {
        case .sent:
            self = .record(.sent, reason: nil)
        case .invalidateToken(let reason):
            self = .invalidate(reason: reason, since: nil)
        case .retry(let after):
            // At most a day: the message's expiry bounds the wait anyway.
            self = after.map { .retryNotBefore(.milliseconds(Int64((min(max($0, 0), 86_400) * 1000).rounded(.up)))) } ?? .retry
        case .credentialsBroken(let reason):
            self = .credentialBroken(reason: reason)
        case .failMessage(let reason):
            self = .record(.failed, reason: reason)
        }
    }
}
