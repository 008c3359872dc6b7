import RelayCore

/// Delivers one webhook request: what the outbox's delivery worker calls, and what its
/// tests replace.
public protocol WebhookPoster: Sendable {
    /// POSTs `body` to `url` once (no retry, no redirect followed) and says how it went.
    ///
    /// - Parameter headers: sent as given besides `Host`, `Content-Length`, `Connection:
    ///   close`, which the poster sets (passing those is refused), and `User-Agent` unless given.
    func post(_ url: WebhookURL, body: [UInt8], headers: [(String, String)]) async -> WebhookAttempt
}

/// How one webhook POST went.
public enum WebhookAttempt: Sendable, Hashable, CustomStringConvertible {
    /// The receiver answered with this status; a 3xx too (redirects are not followed).
    case answered(status: Int)
    /// No answer in time; the phase that ran out: "connect" (DNS, TCP, TLS) or "answer".
    case timedOut(String)
    /// Not sent, by our own rule: the SSRF guard (an address that is not public), a body
    /// over the cap, a header we set ourselves or cannot send.
    case refused(String)
    /// Sent or tried and broken: DNS, connect, TLS (certificate), a malformed or missing answer.
    case failed(String)

    public var description: String {
        switch self {
        case let .answered(status): "answered \(status)"
        case let .timedOut(phase): "timed out (\(phase))"
        case let .refused(reason): "refused: \(reason)"
        case let .failed(reason): "failed: \(reason)"
        }
    }
}
