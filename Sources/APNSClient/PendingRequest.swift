/// One message on its way: the message, its retry state, and whom to tell.
///
/// Thread rule: made on the caller's task, then used only on the loop thread of the pool
/// it was handed to. `finish` reports exactly once.
final class PendingRequest: @unchecked Sendable {
    /// Whom the result goes to: a task waiting in `send(_:)`, or a slot of a batch.
    enum Recipient {
        case caller(CheckedContinuation<HTTP2Answer, Never>)
        case batch(SendBatch, index: Int)
    }

    /// Sent unchanged on every attempt (same apns-id, same collapse id).
    let message: any HTTP2Message
    /// Connections that died under this request so far.
    var attempts = 0
    /// Whether an `ExpiredProviderToken` answer already made us retry with a new token.
    var retriedWithNewToken = false
    /// When it was queued, in the client clock's `monotonicSeconds`.
    var queuedAt: Double
    /// Goes out before every waiting request that is not (`RequestQueue`).
    let urgent: Bool
    private var recipient: Recipient?

    init(message: any HTTP2Message, recipient: Recipient, queuedAt: Double, urgent: Bool = false) {
        self.message = message
        self.recipient = recipient
        self.queuedAt = queuedAt
        self.urgent = urgent
    }

    /// Hands the result over; a second call is a bug and is ignored.
    func finish(_ result: HTTP2Answer) {
        guard let recipient else {
            assertionFailure("request finished twice")
            return
        }
        self.recipient = nil
        switch recipient {
        case let .caller(continuation): continuation.resume(returning: result)
        case let .batch(batch, index): batch.finish(index, result)
        }
    }
}
