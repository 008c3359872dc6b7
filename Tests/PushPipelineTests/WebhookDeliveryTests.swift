import Foundation
import PushPipeline
import RelayCore
import Testing
import TestSupport
import WebhookClient

/// Issue 28: webhook events delivered from the outbox to a real receiver on loopback,
/// signed, batched, retried until a 2xx, dead-lettered past the horizon, and picked up
/// after a holder dies with the lease.
@Suite struct WebhookDeliveryTests {
    static var loopback: WebhookClientConfiguration {
        var client = WebhookClientConfiguration()
        client.allowPrivate = true
        client.connectTimeout = .seconds(2)
        client.timeout = .seconds(5)
        return client
    }

    /// Quick polls and retries: 50 ms, doubling to 200 ms, for `horizon`.
    static func quick(horizon: Duration = .seconds(60)) -> (inout PipelineConfiguration) -> Void {
        { pipeline in
            pipeline.webhooks.pollInterval = .milliseconds(50)
            pipeline.webhooks.retry = WebhookRetryPolicy(backoff: Backoff(base: .milliseconds(50), cap: .milliseconds(200)), horizon: horizon)
        }
    }

    /// Sets the app's webhook; its secret.
    static func subscribe(_ relay: PipelineHarness, _ app: PipelineHarness.App, url: String,
                          events: [String] = ["device.invalidated", "message.done"], base: String? = nil) async throws -> String {
        let reply = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/webhook", json: ["url": url, "events": events], base: base)
        guard reply.status == 200, let secret = reply.json["secret"] as? String else { throw HarnessError("webhook: \(reply.status) \(reply.text)") }
        return secret
    }

    static func deliveries(_ relay: PipelineHarness, _ app: PipelineHarness.App, state: String? = nil) async throws -> [[String: Any]] {
        let reply = try await relay.request("GET", "/admin/v1/apps/\(app.key)/webhook/deliveries" + (state.map { "?state=\($0)" } ?? ""))
        return reply.json["deliveries"] as? [[String: Any]] ?? []
    }

    @Test func eventsArriveSignedAndBatched() async throws {
        let receiver = try WebhookReceiver.start()
        try await withStopping(receiver, stop: { await $0.stop() }) { receiver in
            try await PipelineHarness.with(tune: Self.quick(), webhooks: Self.loopback) { relay in
                let app = try await relay.createApp()
                let secret = try await Self.subscribe(relay, app, url: receiver.url)
                try await relay.insertDevices(app, count: 3, prefix: "d1")
                let dead = try await relay.insertDevices(app, count: 4, prefix: "dead")
                let id = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "hi"]])
                try await relay.waitUntilFinished(id)

                let requests = try await poll(timeout: .seconds(30), "5 events delivered") {
                    let requests = receiver.requests
                    return requests.flatMap(\.events).count >= 5 ? requests : nil
                }
                #expect(requests.allSatisfy { $0.isSigned(with: secret) }, "\(requests.map(\.signature))")
                #expect(requests.allSatisfy { !$0.isSigned(with: secret + "0") })
                #expect(requests.allSatisfy { $0.contentType == "application/json" && $0.json["app_key"] as? String == app.key })
                let events = requests.flatMap(\.events)
                #expect(Set(events.filter { $0["event"] as? String == "device.invalidated" }.compactMap { $0["token"] as? String }) == Set(dead))
                let done = events.filter { $0["event"] as? String == "message.done" }
                #expect(done.count == 1 && done.first?["msg_id"] as? String == String(id) && done.first?["sent"] as? Int == 3)
                #expect(Set(events.compactMap { $0["id"] as? String }).count == 5, "each event has its own id")
                // The four invalidations were committed together, so one request carried them.
                #expect(requests.contains { $0.events.count >= 4 }, "\(requests.map(\.events.count))")

                let listed = try await poll(timeout: .seconds(10), "the listing to show them delivered") {
                    let listed = try await Self.deliveries(relay, app)
                    return listed.allSatisfy { $0["state"] as? String == "delivered" } ? listed : nil
                }
                #expect(listed.count == 5)
                #expect(listed.allSatisfy { $0["attempts"] as? Int == 1 && $0["last_status"] as? Int == 200 && $0["last_error"] is NSNull })
            }
        }
    }

    /// A device's receipts (with its client-key secret) become `receipt` events, once each.
    @Test func receiptsArriveAsEvents() async throws {
        let receiver = try WebhookReceiver.start()
        try await withStopping(receiver, stop: { await $0.stop() }) { receiver in
            try await PipelineHarness.with(tune: Self.quick(), webhooks: Self.loopback) { relay in
                let app = try await relay.createApp()
                let secret = try await Self.subscribe(relay, app, url: receiver.url, events: ["receipt"])
                let (rid, deviceSecret) = try await ClientKeyDeliveryTests.registerFromThePhone(relay, app, token: PipelineHarness.token(prefix: "c3", index: 1))
                let msgID = try await relay.accepted(app, ["platform": "ios", "audience": ["registration_id": [rid]], "notification": ["alert": "hi"]])
                try await relay.waitUntilFinished(msgID)
                for _ in 0..<2 {
                    let reply = try await relay.request("POST", "/client/v1/receipts", auth: .bearer(deviceSecret), json: [
                        "registration_id": rid, "receipts": [["msg_id": msgID, "event": "received"], ["msg_id": msgID, "event": "opened"]],
                    ])
                    #expect(reply.status == 200, "\(reply.text)")
                }
                let events = try await poll(timeout: .seconds(30), "2 receipt events") {
                    let events = receiver.requests.flatMap(\.events)
                    return events.count >= 2 ? events : nil
                }
                #expect(receiver.requests.allSatisfy { $0.isSigned(with: secret) })
                #expect(events.count == 2, "a repeated receipt is no new event")
                #expect(Set(events.compactMap { $0["receipt"] as? String }) == ["received", "opened"])
                #expect(events.allSatisfy { $0["event"] as? String == "receipt" && $0["msg_id"] as? String == String(msgID)
                    && $0["registration_id"] as? String == rid && $0["platform"] as? String == "ios" && $0["at"] is String })
            }
        }
    }

    @Test func aFailingReceiverIsRetriedUntilItTakesTheEvent() async throws {
        let receiver = try WebhookReceiver.start { number in number <= 2 ? 500 : 200 }
        try await withStopping(receiver, stop: { await $0.stop() }) { receiver in
            try await PipelineHarness.with(tune: Self.quick(), webhooks: Self.loopback) { relay in
                let app = try await relay.createApp()
                let secret = try await Self.subscribe(relay, app, url: receiver.url, events: ["message.done"])
                try await relay.insertDevices(app, count: 1, prefix: "d1")
                let id = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "hi"]])
                try await relay.waitUntilFinished(id)
                let delivered = try await poll(timeout: .seconds(30), "the event delivered") {
                    try await Self.deliveries(relay, app, state: "delivered").first
                }
                #expect(delivered["attempts"] as? Int == 3)
                #expect(delivered["last_status"] as? Int == 200)
                let requests = receiver.requests
                #expect(requests.count == 3)
                #expect(requests.allSatisfy { $0.isSigned(with: secret) && $0.events.first?["msg_id"] as? String == String(id) })
                #expect(Set(requests.compactMap { $0.events.first?["id"] as? String }).count == 1, "the same event each time")
            }
        }
    }

    @Test func aReceiverDownPastTheHorizonLeavesADeadLetterThatCanBeRetried() async throws {
        // A port nobody listens on any more.
        let gone = try WebhookReceiver.start()
        let url = gone.url
        await gone.stop()
        try await PipelineHarness.with(tune: Self.quick(horizon: .seconds(1)), webhooks: Self.loopback) { relay in
            let app = try await relay.createApp()
            _ = try await Self.subscribe(relay, app, url: url, events: ["message.done"])
            try await relay.insertDevices(app, count: 1, prefix: "d1")
            let id = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "hi"]])
            try await relay.waitUntilFinished(id)
            let dead = try await poll(timeout: .seconds(30), "a dead letter") { try await Self.deliveries(relay, app, state: "dead").first }
            #expect((dead["attempts"] as? Int ?? 0) >= 2)
            #expect((dead["last_error"] as? String)?.hasPrefix("failed") == true, "\(dead)")
            #expect(dead["last_status"] is NSNull)
            #expect(dead["next_attempt_at"] is NSNull)
            #expect((dead["payload"] as? [String: Any])?["msg_id"] as? String == String(id))
            #expect(try await relay.request("GET", "/admin/v1/apps/\(app.key)/webhook").json["dead"] as? Int == 1)

            // The dashboard's app page shows it.
            let http = Curl(relay)
            let login = try await http.call(["/dashboard/login", "--data-urlencode", "token=\(PipelineHarness.adminToken)"])
            let cookie = try #require(login.header("set-cookie")?.split(separator: ";").first.map(String.init))
            let page = try await http.call(["/dashboard/apps/\(app.key)", "-H", "Cookie: \(cookie)"])
            #expect(page.body.contains("<h2>Webhook</h2>") && page.body.contains("Latest dead letters") && page.body.contains("message.done"))

            // Pointed at a live receiver, a retried dead letter is delivered.
            let receiver = try WebhookReceiver.start()
            try await withStopping(receiver, stop: { await $0.stop() }) { receiver in
                let secret = try await Self.subscribe(relay, app, url: receiver.url, events: ["message.done"])
                #expect(try await relay.request("POST", "/admin/v1/apps/\(app.key)/webhook/deliveries/retry").json["retried"] as? Int == 1)
                let request = try await poll(timeout: .seconds(30), "the retried letter") { receiver.requests.first }
                #expect(request.isSigned(with: secret))
                #expect(request.events.first?["msg_id"] as? String == String(id))
            }
        }
    }

    @Test func theSSRFGuardRefusesLoopbackUnlessAllowed() async throws {
        let receiver = try WebhookReceiver.start()
        try await withStopping(receiver, stop: { await $0.stop() }) { receiver in
            try await PipelineHarness.with(tune: Self.quick(), webhooks: WebhookClientConfiguration()) { relay in
                let app = try await relay.createApp()
                _ = try await Self.subscribe(relay, app, url: receiver.url, events: ["message.done"])
                try await relay.insertDevices(app, count: 1, prefix: "d1")
                try await relay.waitUntilFinished(try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "hi"]]))
                let refused = try await poll(timeout: .seconds(30), "a refused attempt") {
                    try await Self.deliveries(relay, app).first { ($0["attempts"] as? Int ?? 0) > 0 }
                }
                #expect((refused["last_error"] as? String)?.hasPrefix("refused") == true, "\(refused)")
                #expect(receiver.requests.isEmpty)
            }
        }
    }

    /// A holder that died with events leased (its lease in the rows, never settled): they
    /// come due when the lease runs out, and the next worker delivers them.
    @Test func eventsLeasedByADeadHolderAreDeliveredByTheNext() async throws {
        let receiver = try WebhookReceiver.start()
        try await withStopping(receiver, stop: { await $0.stop() }) { receiver in
            try await PipelineHarness.with(tune: Self.quick(), webhooks: Self.loopback) { relay in
                let app = try await relay.createApp()
                _ = try await Self.subscribe(relay, app, url: receiver.url, events: ["message.done"])
                try await relay.pool.query("""
                    INSERT INTO webhook_events (app_id, event, payload, lease_owner, next_attempt_at)
                    VALUES ($1, 'message.done', '{"event": "message.done", "msg_id": "42"}', 'webhooks-killed', now() + interval '1 second')
                    """, [app.id])
                let request = try await poll(timeout: .seconds(30), "the event after the lease") { receiver.requests.first }
                #expect(request.events.first?["msg_id"] as? String == "42")
                let delivered = try await poll(timeout: .seconds(10), "delivered") { try await Self.deliveries(relay, app, state: "delivered").first }
                #expect(delivered["attempts"] as? Int == 1)
                let waited = try await relay.pool.query("SELECT last_attempt_at >= created_at + interval '1 second' AS waited FROM webhook_events")
                #expect(try waited[0].bool("waited"), "the dead holder's lease was waited out")
            }
        }
    }
}
