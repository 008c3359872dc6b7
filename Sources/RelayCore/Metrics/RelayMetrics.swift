/// The names of the relay's metric families, declared in one place so a dashboard can be
/// read against this file.
public enum RelayMetrics {
    // Recorded by the API.
    public static let httpRequests = "pushrelay_http_requests_total"
    public static let httpDuration = "pushrelay_http_request_duration_seconds"
    public static let pushesAccepted = "pushrelay_pushes_accepted_total"
    // Recorded by workers.
    public static let apnsResponses = "pushrelay_apns_responses_total"
    public static let fcmResponses = "pushrelay_fcm_responses_total"
    public static let deliveries = "pushrelay_deliveries_total"
    public static let retries = "pushrelay_push_retries_total"
    public static let tokensInvalidated = "pushrelay_tokens_invalidated_total"
    // Read at scrape time.
    public static let queueChunks = "pushrelay_queue_chunks"
    public static let queueOldest = "pushrelay_queue_oldest_pending_seconds"
    public static let messagesInProgress = "pushrelay_messages_in_progress"
    public static let dbPoolConnections = "pushrelay_db_pool_connections"
    public static let dbPoolWaiting = "pushrelay_db_pool_waiting_calls"
    public static let apnsClients = "pushrelay_apns_clients"
    public static let apnsStreams = "pushrelay_apns_streams_open"
    public static let apnsInFlight = "pushrelay_apns_requests_in_flight"
    public static let apnsConnections = "pushrelay_apns_connections_opened"
    public static let apnsConnectionsOpen = "pushrelay_apns_connections_open"
    public static let apnsWindow = "pushrelay_apns_window"
    public static let fcmClients = "pushrelay_fcm_clients"
    public static let fcmStreams = "pushrelay_fcm_streams_open"
    public static let fcmInFlight = "pushrelay_fcm_requests_in_flight"
    public static let fcmConnections = "pushrelay_fcm_connections_opened"
    public static let fcmConnectionsOpen = "pushrelay_fcm_connections_open"
    public static let fcmWindow = "pushrelay_fcm_window"

    /// Declares the families recorded as things happen (scrape-time ones come with their
    /// collectors).
    public static func declare(in registry: MetricsRegistry) {
        registry.declare(httpRequests, .counter, help: "HTTP requests answered, by method, route pattern and status.")
        registry.declare(httpDuration, .histogram, help: "Time to answer an HTTP request, by method and route pattern.")
        registry.declare(pushesAccepted, .counter, help: "Pushes accepted into the queue, by app.")
        registry.declare(apnsResponses, .counter,
                         help: "APNs answers by app, HTTP status and reason (status \"error\" when no answer came).")
        registry.declare(fcmResponses, .counter,
                         help: "FCM answers by app, HTTP status and error code (status \"error\" when no answer came).")
        registry.declare(deliveries, .counter, help: "Delivery outcomes recorded, by app and outcome.")
        registry.declare(retries, .counter, help: "Sends retried after a retryable APNs or FCM answer, by app.")
        registry.declare(tokensInvalidated, .counter, help: "Device tokens found dead and deactivated, by app.")
    }
}

extension MetricsRegistry {
    /// A registry with the relay's families declared.
    public static func relay() -> MetricsRegistry {
        let registry = MetricsRegistry()
        RelayMetrics.declare(in: registry)
        return registry
    }
}
