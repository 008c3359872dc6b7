import Foundation
import PostgresStore
import PushPipeline
import RelayCore
import Synchronization
import Testing
import TestSupport
import WebhookClient

/// The webhook scenarios of `make reliability` (issue 28): a receiver down for a while, a
/// slow receiver, and a relay SIGKILLed with events in its hands. Each counts what the
/// receiver took (2xx) against what the outbox held: nothing lost, duplicates bounded.
@Suite(.serialized) struct WebhookFaultTests {
    static let events = FaultReport.full ? 5_000 : 600

    /// Quick polls, retries from 100 ms up to 1 s, 10 events a request.
    static func tune(_ pipeline: inout PipelineConfiguration) {
        pipeline.webhooks.pollInterval = .milliseconds(50)
        pipeline.webhooks.retry = WebhookRetryPolicy(backoff: Backoff(base: .milliseconds(100), cap: .seconds(1)), horizon: .seconds(3600))
        pipeline.webhooks.maxEventsPerRequest = 10
    }

    /// `count` message.done events in the app's outbox, as the pipeline writes them (their
    /// causes are WebhookOutboxTests' business).
    static func fill(_ relay: PipelineHarness, _ app: PipelineHarness.App, count: Int) async throws {
        try await relay.pool.query("""
            INSERT INTO webhook_events (app_id, event, payload)
            SELECT $1, 'message.done', jsonb_build_object('event', 'message.done', 'msg_id', i::text) FROM generate_series(1, $2::integer) AS i
            """, [app.id, count])
    }

    /// Through the API at `base` (a relay process seals the secret with its own key).
    static func subscribe(_ relay: PipelineHarness, _ app: PipelineHarness.App, _ receiver: WebhookReceiver, base: String? = nil) async throws {
        _ = try await WebhookDeliveryTests.subscribe(relay, app, url: receiver.url, events: ["message.done"], base: base)
    }

    /// Waits until the receiver took every event; the figures.
    // The table's "sharing a collapse id" column: every copy of an event carries the event's
    // id (the receiver counts duplicates by it), so a receiver that drops repeats by id acts
    // once, as a phone shows one notification per collapse id.
    static func everyEventTaken(_ receiver: WebhookReceiver, timeout: Duration) async throws -> (events: Int, duplicates: Int) {
        try await poll(timeout: timeout, interval: .milliseconds(100), "every event taken") {
            let taken = receiver.taken
            return taken.events >= events ? taken : nil
        }
    }

    @Test func aReceiverDownForAWhileGetsEveryEventAfter() async throws {
        let down = Duration.seconds(FaultReport.full ? 120 : 3)
        let up = Atomic<Bool>(false)
        let receiver = try WebhookReceiver.start { _ in up.load(ordering: .relaxed) ? 200 : 503 }
        try await withStopping(receiver, stop: { await $0.stop() }) { receiver in
            try await PipelineHarness.with(tune: Self.tune, webhooks: WebhookDeliveryTests.loopback) { relay in
                let started = ContinuousClock.now
                let app = try await relay.createApp()
                try await Self.subscribe(relay, app, receiver)
                try await Self.fill(relay, app, count: Self.events)
                try await Task.sleep(for: down)
                #expect(receiver.taken.events == 0)
                #expect(receiver.requests.count > 0, "tried while down")
                up.store(true, ordering: .relaxed)
                let taken = try await Self.everyEventTaken(receiver, timeout: .seconds(120))
                #expect(taken.events == Self.events)
                #expect(taken.duplicates == 0, "a 503 takes nothing, so nothing is sent twice")
                let pending = try await relay.pool.query("SELECT count(*) AS n FROM webhook_events WHERE state <> 'delivered'")[0].int("n")
                #expect(pending == 0)
                FaultReport.record("webhook receiver down \(down.components.seconds) s (503)", sent: Self.events, delivered: taken.events,
                                   duplicates: taken.duplicates, collapsed: taken.duplicates, elapsed: ContinuousClock.now - started,
                                   notes: "retried with backoff up to 1 s; \(receiver.requests.count) requests")
            }
        }
    }

    /// Every request answered late: the events all arrive, once, and a push meanwhile is
    /// not slowed by them (the outbox has workers of its own).
    @Test func aSlowReceiverGetsEveryEventAndPushesGoOn() async throws {
        let slowness = Duration.milliseconds(FaultReport.full ? 2000 : 300)
        let receiver = try WebhookReceiver.start { _ in
            try? await Task.sleep(for: slowness)
            return 200
        }
        try await withStopping(receiver, stop: { await $0.stop() }) { receiver in
            try await PipelineHarness.with(tune: Self.tune, webhooks: WebhookDeliveryTests.loopback) { relay in
                let started = ContinuousClock.now
                let app = try await relay.createApp()
                try await Self.subscribe(relay, app, receiver)
                try await relay.insertDevices(app, count: 1, prefix: "d1")
                try await Self.fill(relay, app, count: Self.events)
                try await poll(timeout: .seconds(30), "requests in flight") { receiver.requests.count > 0 ? true : nil }
                let pushed = ContinuousClock.now
                let id = try await relay.accepted(app, ["platform": "ios", "audience": ["registration_id": [
                    try await relay.pool.query("SELECT replace(registration_id::text, '-', '') AS rid FROM devices")[0].string("rid"),
                ]], "notification": ["alert": "now"]])
                try await relay.waitUntilFinished(id, timeout: .seconds(10))
                let pushTime = ContinuousClock.now - pushed
                #expect(pushTime < slowness * 3, "a push beside a slow receiver took \(pushTime)")
                let taken = try await Self.everyEventTaken(receiver, timeout: .seconds(FaultReport.full ? 1800 : 120))
                #expect(taken.events >= Self.events)
                #expect(taken.duplicates == 0)
                FaultReport.record("webhook receiver answering in \(slowness)", sent: Self.events, delivered: min(taken.events, Self.events),
                                   duplicates: taken.duplicates, collapsed: taken.duplicates, elapsed: ContinuousClock.now - started,
                                   notes: "a push beside it finished in \(pushTime)")
            }
        }
    }

    /// `pushrelay serve` SIGKILLed while it delivers, restarted: the events it held come
    /// due when its lease (2 s here) runs out; duplicates are at most what it had in flight.
    @Test func aRelayKilledWhileDeliveringLosesNoEvent() async throws {
        let receiver = try WebhookReceiver.start { _ in
            try? await Task.sleep(for: .milliseconds(100))
            return 200
        }
        try await withStopping(receiver, stop: { await $0.stop() }) { receiver in
            let relay = try await PipelineHarness.start(worker: false)
            let group = ProcessGroup()
            try await group.cleaningUp(relay) {
                let started = ContinuousClock.now
                let extra = [
                    "PUSHRELAY_WEBHOOK_ALLOW_PRIVATE": "1", "PUSHRELAY_WEBHOOK_POLL_MS": "50", "PUSHRELAY_WEBHOOK_LEASE_SECONDS": "2",
                    "PUSHRELAY_WEBHOOK_TIMEOUT_SECONDS": "1", "PUSHRELAY_WEBHOOK_RETRY_BASE_MS": "100", "PUSHRELAY_WEBHOOK_BATCH": "10",
                ]
                var node = try await group.start(relay, extra: extra)
                let app = try await relay.createApp(base: node.base)
                try await Self.subscribe(relay, app, receiver, base: node.base)
                try await Self.fill(relay, app, count: Self.events)
                do {
                    try await poll(timeout: .seconds(60), "a third delivered") { receiver.taken.events >= Self.events / 3 ? true : nil }
                } catch {
                    let rows = try await relay.pool.query("""
                        SELECT state, attempts, last_error, count(*) AS n FROM webhook_events GROUP BY 1, 2, 3 ORDER BY 4 DESC LIMIT 5
                        """)
                    throw HarnessError("\(error); outbox: \(try rows.map { "\($0["state"] ?? "") \($0["attempts"] ?? "") \($0["last_error"] ?? "-") ×\(try $0.int("n"))" })")
                }
                group.kill(node.process)
                node = try await group.start(relay, extra: extra)
                let taken = try await Self.everyEventTaken(receiver, timeout: .seconds(120))
                #expect(taken.events == Self.events)
                // What the killed node had leased: at most 16 requests of 10 events.
                #expect(taken.duplicates <= 160, "\(taken.duplicates) duplicates")
                FaultReport.record("webhook delivery, relay SIGKILLed", sent: Self.events, delivered: taken.events, duplicates: taken.duplicates,
                                   collapsed: taken.duplicates, elapsed: ContinuousClock.now - started, notes: "window 16 requests × 10 events; lease 2 s")
            }
        }
    }
}
