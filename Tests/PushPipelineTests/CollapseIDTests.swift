import APNSSimulator
import Foundation
import PostgresStore
import PushPipeline
import Testing
import TestSupport

/// The `apns-collapse-id` every notification carries (issue 21 §1) and the header values the
/// API refuses (issue 22 §4), checked on what the APNs simulator recorded.
@Suite(.serialized) struct CollapseIDTests {
    /// First sends and retries alike carry the message's one collapse id: its own
    /// `apns_collapse_id`, else `pushrelay-<msg_id>`. A third of the attempts get a 503, so
    /// many deliveries are retries.
    @Test func firstSendsAndRetriesCarryTheMessagesCollapseID() async throws {
        try await PipelineHarness.with(simulate: { $0.rate503 = 0.3; $0.seed = 21 }) { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 300, prefix: "d1")
            let plain = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "plain"]])
            try await relay.waitUntilFinished(plain)
            let given = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "given"],
                                                       "options": ["apns_collapse_id": "score-7"]])
            try await relay.waitUntilFinished(given)

            #expect(relay.simulator.stats.rejectedTotal > 0, "some attempts were refused and retried")
            for (msgID, collapseID) in [(plain, "pushrelay-\(plain)"), (given, "score-7")] {
                let message = try await relay.message(msgID)
                #expect(try message.int("sent_count") == tokens.count)
                #expect(try message.int("retry_count") > 0, "retries of \(msgID)")
                #expect(message["collapse_id"] == collapseID)
            }
            // Each token's log holds both messages: every copy of them carried one id per message.
            let deliveries = relay.simulator.deliveries().filter { Set(tokens).contains($0.token) }
            #expect(deliveries.count == tokens.count && deliveries.allSatisfy { $0.count == 2 && $0.collapseID == "score-7" })
        }
    }

    /// Each first copy carries the collapse id (the device can merge a later duplicate into
    /// it): one message per device here, so the simulator's per-token record tells.
    @Test func aSingleCopyCarriesTheCollapseIDToo() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 50, prefix: "d2")
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "once"]])
            try await relay.waitUntilFinished(msgID)
            let deliveries = relay.simulator.deliveries().filter { Set(tokens).contains($0.token) }
            #expect(deliveries.count == tokens.count)
            #expect(deliveries.allSatisfy { $0.count == 1 && $0.collapseID == "pushrelay-\(msgID)" && $0.oneCollapseID })
        }
    }

    /// `override_msg_id`: the new message carries the collapse id of the one it overrides,
    /// its own `apns_collapse_id` when it had one, through chains of overrides; only among
    /// the app's own messages.
    @Test func anOverrideCarriesTheOverriddenMessagesCollapseID() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let other = try await relay.createApp("other app")
            let token = try await relay.insertDevices(app, count: 1, prefix: "d3")[0]
            try await relay.pool.query("UPDATE devices SET alias = 'alice' WHERE app_id = $1", [app.id])
            func push(_ alert: String, _ options: [String: Any]) async throws -> Int64 {
                let msgID = try await relay.accepted(app, ["platform": "ios", "audience": ["alias": ["alice"]],
                                                           "notification": ["alert": alert], "options": options])
                try await relay.waitUntilFinished(msgID)
                return msgID
            }
            func lastCollapseID() -> String? { relay.simulator.deliveries(token: token).first?.collapseID }

            let order = try await push("order placed", ["apns_collapse_id": "order-1"])
            let filled = try await push("order filled", ["override_msg_id": String(order)])
            #expect(lastCollapseID() == "order-1", "replaces the first on the phone")
            _ = try await push("order settled", ["override_msg_id": filled])
            #expect(lastCollapseID() == "order-1", "an override of an override")
            let plain = try await push("plain", [:])
            #expect(lastCollapseID() == "pushrelay-\(plain)")
            // The override wins over an apns_collapse_id given beside it: it is what replaces.
            _ = try await push("fix", ["override_msg_id": plain, "apns_collapse_id": "ignored"])
            #expect(lastCollapseID() == "pushrelay-\(plain)")

            // Another app's message, or none at all, is not a valid override.
            for overridden in [String(order), "1"] {
                let refused = try await relay.push(other, ["platform": "ios", "audience": "all", "notification": ["alert": "x"],
                                                           "options": ["override_msg_id": overridden]])
                #expect(refused.status == 400, "\(refused.text)")
                #expect((refused.json["error"] as? [String: Any])?["code"] as? Int == 1003)
                #expect(((refused.json["error"] as? [String: Any])?["message"] as? String)?.contains("override_msg_id") == true)
            }
            #expect(try await relay.pool.query("SELECT count(*) AS n FROM messages WHERE app_id = $1", [other.id])[0].int("n") == 0)
        }
    }

    /// Issue 22 §4's reproduction: 300 pushes whose collapse id holds a control character are
    /// refused at the API (they used to be retried until their TTL, a day, slowing other
    /// apps), and another app's push is delivered meanwhile.
    @Test func threeHundredControlCharacterCollapseIDsAreRefusedAtTheAPI() async throws {
        try await PipelineHarness.with { relay in
            let hostile = try await relay.createApp("hostile")
            let calm = try await relay.createApp("calm")
            try await relay.insertDevices(hostile, count: 1, prefix: "d4")
            let calmToken = try await relay.insertDevices(calm, count: 1, prefix: "d5")[0]
            let controls = (0..<32).map { Character(Unicode.Scalar(UInt8($0))) } + ["\u{7F}"]
            for index in 0..<300 {
                let reply = try await relay.push(hostile, [
                    "platform": "ios", "audience": "all", "notification": ["alert": "x"],
                    "options": ["apns_collapse_id": "id\(controls[index % controls.count])\(index)"],
                ])
                #expect(reply.status == 400, "\(index): \(reply.text)")
                let error = reply.json["error"] as? [String: Any]
                #expect(error?["code"] as? Int == 1003)
                #expect((error?["message"] as? String)?.hasPrefix("options.apns_collapse_id contains a control character") == true)
            }
            #expect(try await relay.pool.query("SELECT count(*) AS n FROM messages WHERE app_id = $1", [hostile.id])[0].int("n") == 0)
            let msgID = try await relay.accepted(calm, ["platform": "ios", "audience": "all", "notification": ["alert": "calm"]])
            try await relay.waitUntilFinished(msgID, timeout: .seconds(10))
            #expect(relay.simulator.deliveries(token: calmToken).first?.msgID == msgID)
        }
    }

    /// A stored message whose collapse id is not a valid header value (stored before the API
    /// checked it, or written straight into the database) fails for good at once, with the
    /// reason, instead of being retried as a connection failure until its TTL.
    @Test func aCollapseIDTheHeaderCannotCarryFailsTheNotificationForGood() async throws {
        let relay = try await PipelineHarness.start(worker: false)
        let worker = PushWorker(pool: relay.pool, connectionString: relay.databaseURL, secretBox: relay.secretBox,
                                configuration: relay.pipeline, logger: TestDatabase.quietLogger)
        var running: Task<Void, Never>?
        do {
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 3, prefix: "d6")
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "bad header"]])
            try await relay.pool.query("UPDATE messages SET collapse_id = E'a\\r\\nb' WHERE id = $1", [msgID])
            running = Task { await worker.run() }
            let message = try await relay.waitUntilFinished(msgID, timeout: .seconds(20))

            #expect(try message.int("failed_count") == 3)
            #expect(try message.int("sent_count") == 0)
            #expect(try message.int("retry_count") == 0, "never retried")
            let reasons = try await relay.pool.query("SELECT reason FROM message_failures WHERE message_id = $1", [msgID])
                .map { try $0.string("reason") }
            #expect(reasons.count == 1 && reasons[0].contains("apns-collapse-id contains a control character"), "\(reasons)")
            #expect(relay.simulator.stats.streams == 0, "nothing reached APNs")
        } catch {
            worker.stop()
            await running?.value
            await relay.stop()
            throw error
        }
        worker.stop()
        await running?.value
        await relay.stop()
    }
}
