/// The events an app's webhook may subscribe to (issue 28), as named in the subscription,
/// the outbox (`webhook_events.event`) and each event's `event` field.
public enum WebhookEventType: String, Sendable, CaseIterable, Codable {
    /// A device reported a notification received or opened (`POST /client/v1/receipts`).
    case receipt
    /// The pipeline marked a token dead (APNs 410 / FCM UNREGISTERED and the like).
    case deviceInvalidated = "device.invalidated"
    /// A message finished: every device has an outcome.
    case messageDone = "message.done"
}
