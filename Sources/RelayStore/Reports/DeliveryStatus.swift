import PushCore

/// The answer of `POST /v3/status/message` for one registration id.
public enum DeliveryStatus: Int, Sendable, Equatable {
    /// APNs accepted the notification for the device.
    case delivered = 0
    /// Not delivered: it failed, the token is dead, it expired or was withdrawn, or it has
    /// no outcome yet while the message is still being sent.
    case notDelivered = 1
    /// The registration id is not a device of this app.
    case notInApp = 2
    /// A device of this app that the message did not target.
    case notTargeted = 3
    /// JPush's "system error"; PushRelay answers a failure with an error response for the
    /// whole call instead, so this is never given.
    case error = 4

    /// The status of one device.
    ///
    /// - Parameters:
    ///   - isDevice: whether the registration id is a device of the calling app.
    ///   - outcome: the device's delivery outcome for the message (`sent`, `failed`, …), if any.
    ///   - messageState: the message's state. A device without an outcome is a target still
    ///     waiting while the message resolves or sends, not a target once it is `done` (every
    ///     target of a done message has an outcome), and not delivered if it was withdrawn.
    public static func of(isDevice: Bool, outcome: String?, messageState: MessageState) -> DeliveryStatus {
        guard isDevice else { return .notInApp }
        if let outcome { return outcome == "sent" ? .delivered : .notDelivered }
        return messageState == .done ? .notTargeted : .notDelivered
    }
}
