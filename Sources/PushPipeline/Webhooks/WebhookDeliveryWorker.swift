import APNSClient
import Foundation
import PostgresStore
import RelayCore
import RelayCrypto
import Synchronization
import WebhookClient

/// Drains the webhook outbox (issue 28): leases due events (`WebhookOutboxStatements`),
/// cuts them into requests per app (`WebhookRequestBatch`), signs and POSTs each through the
/// poster, and records what `WebhookRetryPolicy` decides. One per worker process, on its own
/// pool connections and tasks, so a slow receiver never slows pushes; at most
/// `maxInFlight` requests at once, and events are leased only for free request slots.
///
/// Delivery is at least once: an event whose holder dies (or whose answer is lost) comes
/// due again when its lease runs out. It looks for due events every `pollInterval`, and at
/// once after a request ends.
public final class WebhookDeliveryWorker: Sendable {
    private let pool: PostgresPool
    private let box: SecretBox
    private let poster: any WebhookPoster
    private let configuration: WebhookDeliveryConfiguration
    private let clock: any PipelineClock
    private let jitter: @Sendable () -> Double
    private let logger: Logger
    /// This worker's name in `lease_owner`: unique per start.
    private let owner = "webhooks-" + UUID().uuidString
    private let wake = WakeSignal()
    private let stopped = Atomic<Bool>(false)
    private let inFlight = Atomic<Int>(0)

    public init(pool: PostgresPool, box: SecretBox, poster: any WebhookPoster, configuration: WebhookDeliveryConfiguration,
                clock: any PipelineClock = SystemClock(), jitter: @escaping @Sendable () -> Double = { .random(in: 0...1) }, logger: Logger) {
        self.pool = pool
        self.box = box
        self.poster = poster
        self.configuration = configuration
        self.clock = clock
        self.jitter = jitter
        self.logger = logger.with(["component": "webhooks"])
    }

    /// Delivers until `stop()`, then waits for the requests in flight. Events leased and not
    /// sent yet come due again when their lease runs out.
    public func run() async {
        var nextSweep = clock.instant
        await withDiscardingTaskGroup { group in
            var queue: ArraySlice<WebhookRequestBatch> = []
            while !stopped.load(ordering: .relaxed) {
                while inFlight.load(ordering: .relaxed) < configuration.maxInFlight, let batch = queue.popFirst() {
                    inFlight.add(1, ordering: .relaxed)
                    group.addTask {
                        await self.send(batch)
                        self.inFlight.subtract(1, ordering: .relaxed)
                        self.wake.signal()
                    }
                }
                let free = configuration.maxInFlight - inFlight.load(ordering: .relaxed)
                if queue.isEmpty, free > 0 {
                    do {
                        let leased = try await lease(limit: min(configuration.leaseBatch, free * configuration.maxEventsPerRequest))
                        if !leased.isEmpty {
                            queue = WebhookRequestBatch.cut(leased, maxEvents: configuration.maxEventsPerRequest,
                                                            maxBytes: configuration.maxBytesPerRequest)[...]
                            continue
                        }
                        if clock.instant >= nextSweep {
                            nextSweep = clock.instant + .seconds(600)
                            try await sweep()
                        }
                    } catch {
                        logger.warning("webhook outbox unavailable", ["error": "\(error)"])
                    }
                }
                await wake.wait(timeout: configuration.pollInterval)
            }
        }
        logger.info("webhook delivery stopped")
    }

    public func stop() {
        stopped.store(true, ordering: .relaxed)
        wake.signal()
    }

    /// Leases up to `limit` due events.
    private func lease(limit: Int) async throws -> [LeasedWebhookEvent] {
        let lease = Int(configuration.lease.components.seconds) * 1000
        return try await pool.preparedQuery(WebhookOutboxStatements.lease, [clock.now, limit, lease, owner]).map { row in
            LeasedWebhookEvent(
                id: Int64(try row.int("id")), appID: Int64(try row.int("app_id")), payload: try row.string("payload"),
                attempts: try row.int("attempts"), start: try row.date("horizon_from"),
                target: WebhookTarget(appKey: try row.string("app_key"), url: try row.string("url"), sealedSecret: try row.bytes("sealed_secret")))
        }
    }

    /// One request: signed, POSTed, and its events' fate recorded.
    private func send(_ batch: WebhookRequestBatch) async {
        let attempt = await post(batch)
        let now = clock.now
        var states: [String] = [], next: [Date?] = []
        for event in batch.events {
            switch configuration.retry.verdict(attempt, attempts: event.attempts + 1, start: event.start, now: now, jitter: jitter()) {
            case .delivered: states.append("delivered"); next.append(nil)
            case .retry(let at): states.append("pending"); next.append(at)
            case .dead: states.append("dead"); next.append(nil)
            }
        }
        let status: Int? = if case .answered(let status) = attempt { status } else { nil }
        let error: String? = states.first == "delivered" ? nil : attempt.description
        if error != nil {
            logger.info("webhook request failed", ["app_key": batch.target.appKey, "events": String(batch.events.count), "attempt": attempt.description])
        }
        do {
            try await pool.preparedQuery(WebhookOutboxStatements.settle, [
                owner, now, SQLArray.bigint(batch.events.map(\.id)), SQLArray.text(states),
                SQLArray.int(batch.events.map { _ in status }), SQLArray.text(batch.events.map { _ in error }), SQLArray.timestamps(next),
            ])
        } catch {
            // The lease runs out and the events are sent again: at least once.
            logger.warning("webhook attempt not recorded", ["app_key": batch.target.appKey, "error": "\(error)"])
        }
    }

    /// The POST with its signature; a webhook whose URL or secret no longer opens is refused
    /// (and retried, then dead-lettered, like any failure).
    private func post(_ batch: WebhookRequestBatch) async -> WebhookAttempt {
        let url: WebhookURL
        let secret: [UInt8]
        do {
            url = try WebhookURL(parsing: batch.target.url)
            secret = try box.open(batch.target.sealedSecret, associatedData: WebhookSignature.associatedData(appKey: batch.target.appKey))
        } catch {
            return .refused("the stored webhook does not open: \(error)")
        }
        let body = batch.body()
        let signature = WebhookSignature.header(secret: secret, timestamp: Int64(clock.now.timeIntervalSince1970), body: body)
        return await poster.post(url, body: body, headers: [("Content-Type", "application/json"), (WebhookSignature.headerName, signature)])
    }

    /// Drops delivered events older than `keepDelivered`, a bounded slice each time.
    private func sweep() async throws {
        let before = clock.now.addingTimeInterval(-configuration.keepDelivered.seconds)
        try await pool.preparedQuery(WebhookOutboxStatements.sweep, [before, 10_000])
    }
}
