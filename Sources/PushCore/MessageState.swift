/// A message's life on its `messages` row, as the pipeline moves it and the API reports it.
public enum MessageState: String, Sendable, Hashable, CaseIterable {
    /// The audience is being cut into chunks.
    case resolving
    case sending
    /// Every target has its outcome.
    case done
    /// Stopped by `DELETE /v3/push/{msg_id}`: what was not sent then never will be.
    case withdrawn

    /// Chunks of the message are still to be sent.
    public var isSending: Bool {
        self == .resolving || self == .sending
    }
}
