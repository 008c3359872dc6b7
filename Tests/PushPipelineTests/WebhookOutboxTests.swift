import Foundation
import PostgresStore
import Testing
import TestSupport

/// Issue 28: webhook events are written to the outbox in the transaction of what caused
/// them, and only for apps whose webhook subscribes to them.
@Suite struct WebhookOutboxTests {
    /// The app's outbox rows: (event, payload as JSON).
    static func events(_ relay: PipelineHarness, _ app: PipelineHarness.App) async throws -> [(event: String, payload: [String: Any])] {
        try await relay.pool.query("SELECT event, payload::text AS payload FROM webhook_events WHERE app_id = $1 ORDER BY id", [app.id]).map { row in
            (try row.string("event"),
             try JSONSerialization.jsonObject(with: Data(try row.string("payload").utf8)) as? [String: Any] ?? [:])
        }
    }

    static func subscribe(_ relay: PipelineHarness, _ app: PipelineHarness.App, _ events: [String]) async throws {
        let reply = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/webhook", json: ["url": "http://127.0.0.1:9/hook", "events": events])
        #expect(reply.status == 200, "\(reply.text)")
    }

    @Test func deadTokensAndFinishedMessagesBecomeEventsOfSubscribedAppsOnly() async throws {
        try await PipelineHarness.with { relay in
            let subscribed = try await relay.createApp("subscribed")
            let quiet = try await relay.createApp("no webhook")
            let invalidatedOnly = try await relay.createApp("invalidations only")
            try await Self.subscribe(relay, subscribed, ["device.invalidated", "message.done"])
            try await Self.subscribe(relay, invalidatedOnly, ["device.invalidated"])
            for app in [subscribed, quiet, invalidatedOnly] {
                try await relay.insertDevices(app, count: 3, prefix: "d1")
                try await relay.insertDevices(app, count: 2, prefix: "dead")
            }
            var messages: [Int64] = []
            for app in [subscribed, quiet, invalidatedOnly] {
                let id = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "hi"]])
                try await relay.waitUntilFinished(id)
                messages.append(id)
            }

            let events = try await Self.events(relay, subscribed)
            let dead = events.filter { $0.event == "device.invalidated" }
            #expect(dead.count == 2)
            #expect(Set(dead.compactMap { $0.payload["token"] as? String }) == Set((0..<2).map { PipelineHarness.token(prefix: "dead", index: $0) }))
            #expect(dead.allSatisfy { $0.payload["reason"] as? String == "Unregistered" && ($0.payload["registration_id"] as? String)?.count == 32 })
            let done = events.filter { $0.event == "message.done" }
            #expect(done.count == 1)
            #expect(done.first?.payload["msg_id"] as? String == String(messages[0]))
            #expect(done.first?.payload["sent"] as? Int == 3)
            #expect(done.first?.payload["invalidated"] as? Int == 2)
            #expect(events.last?.event == "message.done", "the message finishes after its outcomes")

            #expect(try await Self.events(relay, quiet).isEmpty)
            #expect(try await Self.events(relay, invalidatedOnly).map(\.event) == ["device.invalidated", "device.invalidated"])
        }
    }

    /// An event exists exactly when its cause committed.
    @Test func noEventForARolledBackCause() async throws {
        try await withStopping(try await PipelineHarness.start(worker: false), stop: { await $0.stop() }) { relay in
            let app = try await relay.createApp()
            try await Self.subscribe(relay, app, ["message.done"])
            try await relay.insertDevices(app, count: 1, prefix: "d1")
            let id = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "hi"]])
            struct RolledBack: Error {}
            await #expect(throws: RolledBack.self) {
                try await relay.pool.withConnection { connection in
                    try connection.transaction { connection in
                        try connection.query("UPDATE messages SET state = 'done', finished_at = now() WHERE id = $1", [id])
                        #expect(try connection.query("SELECT count(*) AS n FROM webhook_events")[0].int("n") == 1)
                        throw RolledBack()
                    }
                }
            }
            #expect(try await Self.events(relay, app).isEmpty)
            try await relay.pool.query("UPDATE messages SET state = 'done', finished_at = now() WHERE id = $1", [id])
            #expect(try await Self.events(relay, app).map(\.event) == ["message.done"])
            // Done once: another update of a done message writes nothing.
            try await relay.pool.query("UPDATE messages SET state = 'done' WHERE id = $1", [id])
            #expect(try await Self.events(relay, app).count == 1)
        }
    }
}
