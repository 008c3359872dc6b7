/// The webhook outbox's delivery worker: how it leases, batches and retries
/// (`PUSHRELAY_WEBHOOK_*`, read by `PipelineConfiguration.parse`; the HTTP client's own
/// bounds are `WebhookClientConfiguration`'s).
public struct WebhookDeliveryConfiguration: Sendable, Equatable {
    public var retry = WebhookRetryPolicy()
    /// How often the worker looks for due events while there are none.
    public var pollInterval: Duration = .seconds(1)
    /// Events a worker leases at once, and requests it has in flight.
    public var leaseBatch = 500
    public var maxInFlight = 16
    /// A leased event whose holder is silent this long comes due again: longer than a
    /// request may take (the client's timeout).
    public var lease: Duration = .seconds(60)
    /// The most events (and bytes of them) one request carries.
    public var maxEventsPerRequest = 100
    public var maxBytesPerRequest = 512 * 1024
    /// Delivered events stay in the deliveries listing this long.
    public var keepDelivered: Duration = .seconds(72 * 3600)

    public init() {}
}
