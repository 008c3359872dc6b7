/// One `send` on its way: the notification, its retry state, and the caller to resume.
///
/// Thread rule: made on the caller's task, then used only on the loop thread of the pool
/// it was handed to. `finish` resumes the caller exactly once.
final class PendingRequest: @unchecked Sendable {
    let notification: APNSNotification
    /// Connections that died under this request so far.
    var attempts = 0
    /// Whether an `ExpiredProviderToken` answer already made us retry with a new token.
    var retriedWithNewToken = false
    /// When it was queued, in `monotonicSeconds`.
    var queuedAt: Double
    private var continuation: CheckedContinuation<APNSResult, Never>?

    init(notification: APNSNotification, continuation: CheckedContinuation<APNSResult, Never>) {
        self.notification = notification
        self.continuation = continuation
        self.queuedAt = monotonicSeconds()
    }

    /// Hands the result to the caller; a second call is a bug and is ignored.
    func finish(_ result: APNSResult) {
        guard let continuation else {
            assertionFailure("request \(notification.apnsID) finished twice")
            return
        }
        self.continuation = nil
        continuation.resume(returning: result)
    }
}
