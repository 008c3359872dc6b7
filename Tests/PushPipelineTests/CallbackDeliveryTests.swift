import Foundation
import PushPipeline
import RelayCore
import Testing
import TestSupport
import WebhookClient

/// Issue 28: JPush's `callback` — a push's receipts (and, with type 8, its acceptance) POSTed
/// to its own URL through the webhook outbox, signed with the app's webhook secret, `params`
/// echoed, only the types asked for.
@Suite struct CallbackDeliveryTests {
    @Test func aPushsCallbackURLGetsTheTypesItAskedForSignedWithItsParams() async throws {
        let webhook = try WebhookReceiver.start()
        let callback = try WebhookReceiver.start()
        try await withStopping(webhook, stop: { await $0.stop() }) { webhook in
            try await withStopping(callback, stop: { await $0.stop() }) { callback in
                try await PipelineHarness.with(tune: WebhookDeliveryTests.quick(), webhooks: WebhookDeliveryTests.loopback) { relay in
                    let app = try await relay.createApp()
                    // A webhook for callbacks only: no events of its own.
                    let secret = try await WebhookDeliveryTests.subscribe(relay, app, url: webhook.url, events: [])
                    let (rid, deviceSecret) = try await ClientKeyDeliveryTests.registerFromThePhone(
                        relay, app, token: PipelineHarness.token(prefix: "cb", index: 1))
                    let audience: [String: Any] = ["registration_id": [rid]]
                    // Accepted (8) and clicked (2) to its own URL; the default (3) to the webhook's URL.
                    let own = try await relay.push(app, ["platform": "ios", "audience": audience, "notification": ["alert": "own"],
                                                         "callback": ["url": callback.url, "params": ["order": "7731"], "type": 10]])
                    #expect(own.status == 200 && (own.json["ignored"] as? [String] ?? []).isEmpty, "\(own.text)")
                    let ownID = try #require((own.json["msg_id"] as? String).flatMap(Int64.init))
                    let plain = try await relay.accepted(app, ["platform": "ios", "audience": audience, "notification": ["alert": "plain"],
                                                               "callback": ["params": ["k": 1]]])
                    try await relay.waitUntilFinished(ownID)
                    try await relay.waitUntilFinished(plain)
                    for msgID in [ownID, plain] {
                        let reply = try await relay.request("POST", "/client/v1/receipts", auth: .bearer(deviceSecret), json: [
                            "registration_id": rid, "receipts": [["msg_id": msgID, "event": "received"], ["msg_id": msgID, "event": "opened"]],
                        ])
                        #expect(reply.status == 200, "\(reply.text)")
                    }

                    let own2 = try await poll(timeout: .seconds(30), "2 events at the callback URL") {
                        let events = callback.requests.flatMap(\.events)
                        return events.count >= 2 ? events : nil
                    }
                    let theirs = try await poll(timeout: .seconds(30), "2 events at the webhook URL") {
                        let events = webhook.requests.flatMap(\.events)
                        return events.count >= 2 ? events : nil
                    }
                    #expect((callback.requests + webhook.requests).allSatisfy { $0.isSigned(with: secret) && $0.json["app_key"] as? String == app.key })
                    #expect(own2.count == 2 && theirs.count == 2, "only the types asked for: \(own2) \(theirs)")
                    #expect(own2.allSatisfy { $0["event"] as? String == "callback" && $0["msg_id"] as? String == String(ownID)
                        && ($0["params"] as? [String: Any])?["order"] as? String == "7731" })
                    let accepted = try #require(own2.first { $0["type"] as? Int == 8 })
                    #expect(accepted["sendno"] as? Int == 0 && accepted["accepted_at"] is String && accepted["registration_id"] == nil)
                    let clicked = try #require(own2.first { $0["type"] as? Int == 2 })
                    #expect(clicked["receipt"] as? String == "opened" && clicked["registration_id"] as? String == rid
                        && clicked["platform"] as? String == "ios" && clicked["at"] is String)
                    #expect(theirs.allSatisfy { $0["event"] as? String == "callback" && $0["msg_id"] as? String == String(plain)
                        && ($0["params"] as? [String: Any])?["k"] as? Int == 1 })
                    #expect(Set(theirs.compactMap { $0["type"] as? Int }) == [1, 2])
                    #expect(Set(theirs.compactMap { $0["receipt"] as? String }) == ["received", "opened"])

                    // The listing shows a callback's own URL, null for the webhook's.
                    let listed = try await WebhookDeliveryTests.deliveries(relay, app)
                    #expect(listed.count == 4)
                    #expect(listed.filter { $0["url"] as? String == callback.url }.count == 2)
                    #expect(listed.filter { $0["url"] is NSNull }.count == 2)
                }
            }
        }
    }

    /// Without a webhook nothing can sign a callback: the push is accepted, its answer names
    /// `callback` ignored, and no event is written.
    @Test func anAppWithoutAWebhookHasItsCallbackIgnored() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 1, prefix: "d1")
            let body: [String: Any] = ["platform": "ios", "audience": "all", "notification": ["alert": "hi"],
                                       "callback": ["url": "https://example.com/cb", "type": 11]]
            let reply = try await relay.push(app, body)
            #expect(reply.status == 200 && reply.json["ignored"] as? [String] == ["callback"], "\(reply.text)")
            let validated = try await relay.request("POST", "/v3/push/validate", auth: app.auth, json: body)
            #expect(validated.json["ignored"] as? [String] == ["callback"], "\(validated.text)")
            let stored = try await relay.pool.query("SELECT url, types, params::text AS params FROM message_callbacks")
            #expect(stored.count == 1)
            #expect(try stored.first?.string("url") == "https://example.com/cb" && stored.first?.int("types") == 11)
            let events = try await relay.pool.query("SELECT count(*) AS n FROM webhook_events")
            #expect(try events[0].int("n") == 0)

            _ = try await WebhookDeliveryTests.subscribe(relay, app, url: "https://example.com/hooks", events: [])
            let signed = try await relay.push(app, body)
            #expect(signed.status == 200 && (signed.json["ignored"] as? [String] ?? []).isEmpty, "\(signed.text)")
        }
    }

    /// A body stored before callbacks were built may carry a callback that today's rules
    /// refuse (a schedule stores its body again at each firing): its message still goes in,
    /// with no callback, as the callback was ignored when it was accepted (migration 0051).
    @Test func aStoredCallbackTodaysRulesRefuseIsIgnoredNotFatal() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 1, prefix: "d1")
            _ = try await WebhookDeliveryTests.subscribe(relay, app, url: "https://example.com/hooks", events: [])
            let reply = try await relay.push(app, ["platform": "ios", "audience": "all", "notification": ["alert": "hi"]])
            let id = try #require((reply.json["msg_id"] as? String).flatMap(Int64.init))
            for (offset, callback) in [#"{"type":4}"#, #"{"type":"x"}"#, #"{"type":3.0}"#, #"{"url":7,"type":8}"#].enumerated() {
                // A copy of the message under another id, done, its body carrying the callback.
                _ = try await relay.pool.query("""
                    INSERT INTO messages SELECT (jsonb_populate_record(NULL::messages, to_jsonb(m) || jsonb_build_object(
                        'id', m.id + $2, 'cid', NULL, 'state', 'done', 'body', jsonb_set(m.body::jsonb, '{callback}', $3::jsonb)::text))).*
                    FROM messages m WHERE m.id = $1
                    """, [id, Int64(offset + 1), callback])
            }
            let copies = try await relay.pool.query("SELECT count(*) AS n FROM messages WHERE id > $1", [id])
            #expect(try copies[0].int("n") == 4)
            let callbacks = try await relay.pool.query("SELECT count(*) AS n FROM message_callbacks")
            #expect(try callbacks[0].int("n") == 0)
            let events = try await relay.pool.query("SELECT count(*) AS n FROM webhook_events WHERE event = 'callback'")
            #expect(try events[0].int("n") == 0)
        }
    }

    @Test func aBadCallbackIsRefusedInJPushsShape() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 1, prefix: "d1")
            for (callback, words) in [(["url": "ftp://example.com"], "callback.url"), (["type": 4], "callback.type"),
                                      (["params": [1]], "callback.params"), (["secret": "x"], "callback.secret")] as [([String: Any], String)] {
                let reply = try await relay.push(app, ["platform": "ios", "audience": "all", "notification": ["alert": "hi"], "callback": callback])
                #expect(reply.status == 400, "\(reply.text)")
                #expect(((reply.json["error"] as? [String: Any])?["message"] as? String)?.contains(words) == true, "\(reply.text)")
            }
        }
    }

    /// The SSRF guard holds for a push's URL as for the webhook's.
    @Test func aLoopbackCallbackURLIsRefusedUnlessAllowed() async throws {
        let callback = try WebhookReceiver.start()
        try await withStopping(callback, stop: { await $0.stop() }) { callback in
            try await PipelineHarness.with(tune: WebhookDeliveryTests.quick(), webhooks: WebhookClientConfiguration()) { relay in
                let app = try await relay.createApp()
                _ = try await WebhookDeliveryTests.subscribe(relay, app, url: "https://example.com/hooks", events: [])
                try await relay.insertDevices(app, count: 1, prefix: "d1")
                _ = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "hi"],
                                                   "callback": ["url": callback.url, "type": 8]])
                let refused = try await poll(timeout: .seconds(30), "a refused attempt") {
                    try await WebhookDeliveryTests.deliveries(relay, app).first { ($0["attempts"] as? Int ?? 0) > 0 }
                }
                #expect((refused["last_error"] as? String)?.hasPrefix("refused") == true, "\(refused)")
                #expect(refused["url"] as? String == callback.url)
                #expect(callback.requests.isEmpty)
            }
        }
    }
}
