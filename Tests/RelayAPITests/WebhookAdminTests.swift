import Foundation
@testable import RelayAPI
import Testing

/// `/admin/v1/apps/{app_key}/webhook` (issue 28): the secret shown once, metadata after,
/// bad input refused in JPush's shape, and the deliveries listing.
@Suite struct WebhookAdminTests {
    @Test func aWebhookIsSetShownWithoutItsSecretAndRemoved() async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let path = "/admin/v1/apps/\(app.key)/webhook"
            #expect(try await relay.request("GET", path).status == 404)

            let put = try await relay.request("PUT", path, json: ["url": "https://Hooks.Example.com/in?x=1", "events": ["message.done", "receipt"]])
            #expect(put.status == 200)
            let secret = try #require(put.json["secret"] as? String)
            #expect(secret.hasPrefix("whsec_") && secret.count == 70)
            #expect(put.json["url"] as? String == "https://hooks.example.com/in?x=1")
            #expect(put.json["events"] as? [String] == ["message.done", "receipt"])

            let shown = try await relay.request("GET", path)
            #expect(shown.status == 200)
            #expect(shown.json["secret"] == nil)
            #expect(!String(decoding: shown.body, as: UTF8.self).contains(String(secret.dropFirst(6))))
            #expect(shown.json["pending"] as? Int == 0)
            #expect(shown.json["dead"] as? Int == 0)
            let sealed = try await relay.pool.query("SELECT sealed_secret FROM webhooks")[0].bytes("sealed_secret")
            #expect(!String(decoding: sealed, as: UTF8.self).contains(String(secret.dropFirst(6))))

            // A PUT again replaces the URL and events, and issues a new secret.
            let again = try await relay.request("PUT", path, json: ["url": "http://127.0.0.1:8080/", "events": ["device.invalidated"]])
            #expect(again.status == 200)
            #expect(again.json["secret"] as? String != secret)
            #expect(again.json["events"] as? [String] == ["device.invalidated"])

            let deliveries = try await relay.request("GET", path + "/deliveries")
            #expect(deliveries.status == 200)
            #expect((deliveries.json["deliveries"] as? [Any])?.isEmpty == true)
            #expect(deliveries.json.keys.contains("next_cursor"))
            #expect(try await relay.request("POST", path + "/deliveries/retry").json["retried"] as? Int == 0)

            #expect(try await relay.request("DELETE", path).status == 200)
            #expect(try await relay.request("DELETE", path).status == 404)
            #expect(try await relay.request("GET", path + "/deliveries").status == 404)
            #expect(try await relay.request("PUT", "/admin/v1/apps/000000000000000000000000/webhook",
                                            json: ["url": "https://example.com/", "events": ["receipt"]]).status == 404)
        }
    }

    @Test(arguments: [
        (#"{"url": "ftp://example.com/", "events": ["receipt"]}"#, "http or https", 1003),
        (#"{"url": "https://user:pw@example.com/", "events": ["receipt"]}"#, "user name", 1003),
        (#"{"events": ["receipt"]}"#, "url", 1002),
        (#"{"url": "https://example.com/"}"#, "events", 1003),
        (#"{"url": "https://example.com/", "events": ["push.sent"]}"#, "unknown event", 1003),
        (#"{"url": "https://example.com/", "events": ["receipt", "receipt"]}"#, "twice", 1003),
        (#"{"url": "https://example.com/", "events": "receipt"}"#, "events", 1003),
        (#"{"url": "https://example.com/", "events": ["receipt"], "secret": "mine"}"#, "secret", 1009),
        ("[]", "object", 1003),
    ])
    func badSubscriptionsAreRefused(_ body: String, _ named: String, _ code: Int) async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let reply = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/webhook", body: Data(body.utf8))
            #expect(reply.status == 400)
            #expect(reply.errorCode == code)
            #expect(reply.errorMessage?.contains(named) == true, "\(body): \(reply.errorMessage ?? "")")
        }
    }

    @Test func theDeliveriesListingIsPagedAndFiltered() async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let path = "/admin/v1/apps/\(app.key)/webhook"
            #expect(try await relay.request("PUT", path, json: ["url": "https://example.com/", "events": ["message.done"]]).status == 200)
            try await relay.pool.query("""
                INSERT INTO webhook_events (app_id, event, payload, state, attempts, last_error)
                SELECT w.app_id, 'message.done', jsonb_build_object('n', i), CASE WHEN i % 2 = 0 THEN 'dead' ELSE 'pending' END,
                       CASE WHEN i % 2 = 0 THEN 9 ELSE 0 END, CASE WHEN i % 2 = 0 THEN 'answered 500' END
                FROM webhooks w, generate_series(1, 5) AS i
                """)
            let first = try await relay.request("GET", path + "/deliveries?limit=3")
            let items = try #require(first.json["deliveries"] as? [[String: Any]])
            #expect(items.compactMap { ($0["payload"] as? [String: Any])?["n"] as? Int } == [5, 4, 3])
            let cursor = try #require(first.json["next_cursor"] as? String)
            let second = try await relay.request("GET", path + "/deliveries?limit=3&cursor=\(cursor)")
            #expect((second.json["deliveries"] as? [[String: Any]])?.compactMap { ($0["payload"] as? [String: Any])?["n"] as? Int } == [2, 1])
            #expect(second.json["next_cursor"] is NSNull)

            let dead = try await relay.request("GET", path + "/deliveries?state=dead")
            let deadItems = try #require(dead.json["deliveries"] as? [[String: Any]])
            #expect(deadItems.count == 2)
            #expect(deadItems.allSatisfy { $0["state"] as? String == "dead" && $0["attempts"] as? Int == 9 && $0["last_error"] as? String == "answered 500" })
            #expect(try await relay.request("GET", path).json["dead"] as? Int == 2)
            #expect(try await relay.request("GET", path + "/deliveries?state=lost").status == 400)
            #expect(try await relay.request("GET", path + "/deliveries?limit=0").status == 400)

            #expect(try await relay.request("POST", path + "/deliveries/retry").json["retried"] as? Int == 2)
            let shown = try await relay.request("GET", path)
            #expect(shown.json["dead"] as? Int == 0)
            #expect(shown.json["pending"] as? Int == 5)
        }
    }
}
