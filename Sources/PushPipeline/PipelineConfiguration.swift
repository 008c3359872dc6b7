import FCMClient
import Foundation
import RelayCore

/// What the workers read from `PUSHRELAY_*` environment variables (parsed purely, like
/// `RelayConfiguration`, which owns the APNs endpoints they share with `apns-send`).
public struct PipelineConfiguration: Sendable, Equatable {
    /// APNs endpoints (the simulator's in development and tests) and extra trusted CAs.
    public var productionURL = URL(string: "https://api.push.apple.com")!
    public var sandboxURL = URL(string: "https://api.sandbox.push.apple.com")!
    public var caFile: String?
    /// FCM's endpoint (the simulator's in development and tests) and an extra trusted CA for it.
    public var fcmURL = FCMClientConfiguration.productionURL
    public var fcmCAFile: String?
    /// Broadcast (and tag) chunks one worker sends at once, and targeted chunks beside them.
    public var slots: Int
    public var targetedSlots: Int
    /// Devices per chunk: also the most a crash can send twice per slot.
    public var chunkSize = Self.defaultChunkSize
    /// A chunk costs a lease, a read and an outcome write whatever its size, and a slot sends
    /// nothing while they run: with 2,000 a 1M broadcast cost about a fifth less CPU a
    /// device than with 500 (docs/scaling.md).
    public static let defaultChunkSize = 2000
    /// A leased chunk whose worker is silent this long is leased again.
    public var leaseSeconds = 30
    /// HTTP/2 connections per (app, environment) APNs client while the round trip does not
    /// limit the rate, and the most it opens when it does (`InFlightWindow`).
    public var apnsConnections: Int
    public var apnsMaxConnections = 32
    /// Requests in flight per (app, environment) APNs client: the window starts at
    /// `apnsMinInFlight` and grows with the bandwidth-delay product up to `apnsMaxInFlight`
    /// (100,000 a second 300 ms away is 30,000 in flight).
    public var apnsMinInFlight = 2000
    public var apnsMaxInFlight = 32000
    /// An app's APNs connection without a request for this long closes, and its client
    /// (with nothing in flight) is dropped, so an idle app costs no socket and no timer.
    public var apnsIdleTimeout: TimeInterval = 300
    /// The most APNs connections the worker holds at once over every app, shared fairly
    /// when reached (`APNSClientResources`).
    public var apnsMaxConnectionsTotal = Self.defaultMaxConnectionsTotal
    /// A fifth of the open-file limit (RLIMIT_NOFILE), at least 16: the API's connections
    /// take up to three quarters of it (`HTTPServerConfiguration.defaultMaxConnections`).
    public static var defaultMaxConnectionsTotal: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return 2000 }
        return max(16, Int(clamping: limit.rlim_cur) / 5)
    }
    public static let defaultRetentionDays = 30
    /// Days deliveries and receipts are kept (their day partitions are then dropped);
    /// messages and their counters are kept.
    public var retentionDays = defaultRetentionDays
    /// Milliseconds between two updates of one Live Activity: a faster one waits for its turn
    /// and a newer one replaces it (`LiveActivityPacer`); 0 sends every update at once.
    public var liveActivityMinIntervalMS = 1000
    /// How often a worker looks for work without a NOTIFY (the fallback).
    public var pollInterval: Duration = .seconds(2)
    /// Retry rounds of an app's chunks a worker starts each second (and at once after a
    /// quiet spell); beyond them the app's chunks wait in the queue, not in slots
    /// (`RetryBudget`).
    public var retryRounds = 10
    /// The webhook outbox's delivery worker (issue 28).
    public var webhooks = WebhookDeliveryConfiguration()

    /// The defaults for a machine with `cores` cores: 2 broadcast slots a core (at least 4;
    /// with chunks of 2,000, 8 on two cores were no faster and widen the duplicate window),
    /// `targetedSlots(slots)` targeted ones, a connection per two cores (2 to 8).
    public init(cores: Int = ProcessInfo.processInfo.activeProcessorCount) {
        slots = max(4, 2 * cores)
        targetedSlots = Self.targetedSlots(slots)
        apnsConnections = min(8, max(2, cores / 2))
    }

    /// Targeted slots beside `slots` broadcast ones: 32 times as many, at most 1,024. A
    /// targeted chunk is mostly one device, its time is round trips, not CPU, and the outcome
    /// writes of the chunks in hand share statements (`OutcomeWriter`): on two cores, 128
    /// sent 582–655 transactional pushes a second where 32 sent 366–417 (issue 25).
    static func targetedSlots(_ slots: Int) -> Int {
        min(1024, 32 * slots)
    }

    public struct Error: Swift.Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The variables, for `pushrelay help` and docs/configuration.md.
    public static let variables: [(name: String, meaning: String)] = [
        ("PUSHRELAY_WORKER_SLOTS", "broadcast and tag chunks a worker sends at once (default 2 per core, at least 4)"),
        ("PUSHRELAY_WORKER_TARGETED_SLOTS", "alias and registration_id chunks it sends at once beside them (default 32 times the slots, at most 1024)"),
        ("PUSHRELAY_CHUNK_SIZE", "devices per chunk (default 2000)"),
        ("PUSHRELAY_CHUNK_LEASE_SECONDS", "a chunk whose worker died is leased again after this (default 30)"),
        ("PUSHRELAY_APNS_CONNECTIONS", "HTTP/2 connections per app and environment (default 1 per 2 cores, 2 to 8)"),
        ("PUSHRELAY_RETENTION_DAYS", "days per-device delivery records and receipts are kept; messages and counters stay (default 30)"),
        ("PUSHRELAY_APNS_MAX_CONNECTIONS", "the most HTTP/2 connections per app and environment while APNs is far away: more open only when the streams of the open ones are full and the round trip limits the rate (default 32)"),
        ("PUSHRELAY_APNS_MAX_IN_FLIGHT", "the most APNs requests in flight per app and environment: the window starts at 2000 and follows rate × round trip up to this (default 32000)"),
        ("PUSHRELAY_APNS_IDLE_TIMEOUT_SECONDS", "an app's APNs connection without a request for this long is closed, and its client dropped (default 300)"),
        ("PUSHRELAY_APNS_MAX_CONNECTIONS_TOTAL", "APNs connections of a worker over every app, shared fairly among the apps with work when reached (default a fifth of the open-file limit)"),
        ("PUSHRELAY_FCM_URL", "FCM's endpoint, https://host[:port] (default https://fcm.googleapis.com; the simulator's in development)"),
        ("PUSHRELAY_FCM_CA_FILE", "PEM CA file trusted for FCM and the service accounts' token endpoints besides the system CAs (e.g. fcm-sim's certificate)"),
        ("PUSHRELAY_LIVE_ACTIVITY_MIN_INTERVAL_MS", "milliseconds between two updates of one Live Activity: one sooner waits for its turn, and a newer one replaces it, so only the newest content state is sent; 0 sends each at once (default 1000)"),
        ("PUSHRELAY_RETRY_ROUNDS", "retry rounds of one app's chunks a worker starts a second; more wait in the queue, so one app's failures never hold the slots of the others (default 10)"),
        ("PUSHRELAY_WEBHOOK_RETRY_HORIZON_SECONDS", "a webhook event is retried this long, then dead-lettered (default 86400)"),
        ("PUSHRELAY_WEBHOOK_RETRY_BASE_MS", "the first retry of a webhook request waits about this long, doubling each time (default 10000)"),
        ("PUSHRELAY_WEBHOOK_RETRY_CAP_SECONDS", "the longest wait between retries of a webhook request (default 3600)"),
        ("PUSHRELAY_WEBHOOK_LEASE_SECONDS", "webhook events leased by a worker that died come due again after this; keep it above PUSHRELAY_WEBHOOK_TIMEOUT_SECONDS (default 60)"),
        ("PUSHRELAY_WEBHOOK_POLL_MS", "how often a worker looks for due webhook events (default 1000)"),
        ("PUSHRELAY_WEBHOOK_BATCH", "the most events in one webhook request (default 100)"),
        ("PUSHRELAY_WEBHOOK_KEEP_DELIVERED_HOURS", "delivered webhook events stay in the deliveries listing this long (default 72)"),
    ]

    /// - Parameters:
    ///   - environment: the process environment.
    ///   - relay: the relay's configuration, for the APNs endpoints and extra CA file.
    public static func parse(_ environment: [String: String], relay: RelayConfiguration = RelayConfiguration()) throws(Error) -> PipelineConfiguration {
        var configuration = PipelineConfiguration()
        configuration.productionURL = relay.apnsProductionURL
        configuration.sandboxURL = relay.apnsSandboxURL
        configuration.caFile = relay.apnsCAFile
        let settings = EnvironmentSettings(environment)
        func value(_ name: String) -> String? { settings.value(name) }
        func number(_ name: String, in range: ClosedRange<Int>) throws(Error) -> Int? {
            do { return try settings.number(name, in: range) } catch { throw Error(description: error.description) }
        }
        if let slots = try number("PUSHRELAY_WORKER_SLOTS", in: 1...256) {
            configuration.slots = slots
            configuration.targetedSlots = targetedSlots(slots)
        }
        if let slots = try number("PUSHRELAY_WORKER_TARGETED_SLOTS", in: 1...1024) { configuration.targetedSlots = slots }
        if let size = try number("PUSHRELAY_CHUNK_SIZE", in: 1...10_000) { configuration.chunkSize = size }
        if let seconds = try number("PUSHRELAY_CHUNK_LEASE_SECONDS", in: 1...3600) { configuration.leaseSeconds = seconds }
        if let count = try number("PUSHRELAY_APNS_CONNECTIONS", in: 1...64) { configuration.apnsConnections = count }
        if let count = try number("PUSHRELAY_APNS_MAX_CONNECTIONS", in: 1...1000) { configuration.apnsMaxConnections = count }
        if let count = try number("PUSHRELAY_APNS_MAX_IN_FLIGHT", in: 1...1_000_000) { configuration.apnsMaxInFlight = count }
        if let seconds = try number("PUSHRELAY_APNS_IDLE_TIMEOUT_SECONDS", in: 1...86_400) { configuration.apnsIdleTimeout = TimeInterval(seconds) }
        if let count = try number("PUSHRELAY_APNS_MAX_CONNECTIONS_TOTAL", in: 1...1_000_000) { configuration.apnsMaxConnectionsTotal = count }
        if let days = try number("PUSHRELAY_RETENTION_DAYS", in: 1...3650) { configuration.retentionDays = days }
        if let rounds = try number("PUSHRELAY_RETRY_ROUNDS", in: 1...10_000) { configuration.retryRounds = rounds }
        if let milliseconds = try number("PUSHRELAY_LIVE_ACTIVITY_MIN_INTERVAL_MS", in: 0...3_600_000) {
            configuration.liveActivityMinIntervalMS = milliseconds
        }
        if let raw = value("PUSHRELAY_FCM_URL") {
            do {
                configuration.fcmURL = try RelayConfiguration.parseAPNSURL("PUSHRELAY_FCM_URL", raw)
            } catch {
                throw Error(description: error.description)
            }
        }
        configuration.fcmCAFile = value("PUSHRELAY_FCM_CA_FILE")
        if let seconds = try number("PUSHRELAY_WEBHOOK_RETRY_HORIZON_SECONDS", in: 1...30 * 86_400) {
            configuration.webhooks.retry.horizon = .seconds(seconds)
        }
        if let milliseconds = try number("PUSHRELAY_WEBHOOK_RETRY_BASE_MS", in: 1...3_600_000) {
            configuration.webhooks.retry.backoff.base = .milliseconds(milliseconds)
        }
        if let seconds = try number("PUSHRELAY_WEBHOOK_RETRY_CAP_SECONDS", in: 1...86_400) { configuration.webhooks.retry.backoff.cap = .seconds(seconds) }
        if let seconds = try number("PUSHRELAY_WEBHOOK_LEASE_SECONDS", in: 1...3600) { configuration.webhooks.lease = .seconds(seconds) }
        if let milliseconds = try number("PUSHRELAY_WEBHOOK_POLL_MS", in: 10...60_000) { configuration.webhooks.pollInterval = .milliseconds(milliseconds) }
        if let count = try number("PUSHRELAY_WEBHOOK_BATCH", in: 1...1000) { configuration.webhooks.maxEventsPerRequest = count }
        if let hours = try number("PUSHRELAY_WEBHOOK_KEEP_DELIVERED_HOURS", in: 1...24 * 365) { configuration.webhooks.keepDelivered = .seconds(hours * 3600) }
        return configuration
    }

    func url(for environment: String) -> URL {
        environment == "sandbox" ? sandboxURL : productionURL
    }
}
