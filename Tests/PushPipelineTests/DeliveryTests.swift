import APNSSimulator
import Foundation
import PostgresStore
import Testing

/// End to end: `POST /v3/push` → PostgreSQL → worker → APNs simulator over TLS, checked on
/// the simulator's own record (not only on our counters).
@Suite(.serialized) struct DeliveryTests {
    @Test func broadcastToTenThousandDevicesIsAcceptedAndCounted() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 10_000, prefix: "a1")
            // A sandbox device is not part of a production broadcast.
            let sandbox = try await relay.insertDevices(app, count: 1, prefix: "a2", environment: "sandbox")
            let started = ContinuousClock.now
            let reply = try await relay.push(app, ["platform": "all", "audience": "all", "notification": ["alert": "hello all"]])
            #expect(reply.status == 200)
            #expect(ContinuousClock.now - started < .seconds(2), "answered before fan-out")
            let msgID = try #require((reply.json["msg_id"] as? String).flatMap(Int64.init))
            let message = try await relay.waitUntilFinished(msgID, timeout: .seconds(120))

            #expect(message["state"] == "done")
            #expect(try message.int("target_count") == 10_000)
            #expect(try message.int("sent_count") == 10_000)
            #expect(try message.int("failed_count") == 0)
            #expect(message["first_sent_at"] != nil && message["finished_at"] != nil)
            let stats = relay.simulator.stats
            #expect(stats.accepted == 10_000)
            #expect(stats.rejectedTotal == 0)
            let deliveries = relay.simulator.deliveries()
            #expect(Set(deliveries.map(\.token)) == Set(tokens))
            #expect(deliveries.allSatisfy { $0.count == 1 && $0.alert == "hello all" && $0.msgID == msgID && $0.topic == PipelineHarness.topic })
            #expect(relay.simulator.deliveries(token: sandbox[0]).isEmpty)
            #expect(try await relay.sentDevices(msgID) == (10_000, 10_000))
        }
    }

    @Test func audiencesHitExactlyTheirDevices() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let other = try await relay.createApp("other app")
            let tokens = try await relay.insertDevices(app, count: 12, prefix: "b1")
            let foreign = try await relay.insertDevices(other, count: 4, prefix: "b2")
            // Tags: red on 0..<6, blue on 4..<10, green on 0, 5, 9 (and on the other app's devices).
            try await relay.tag(Array(tokens[0..<6]), "red", app: app)
            try await relay.tag(Array(tokens[4..<10]), "blue", app: app)
            try await relay.tag([tokens[0], tokens[5], tokens[9]], "green", app: app)
            try await relay.tag(foreign, "red", app: other)
            try await relay.pool.query("UPDATE devices SET alias = 'alice' WHERE token = ANY ($1::text[])",
                                       ["{\(tokens[2]),\(tokens[11])}"])
            let rids = try await relay.pool.query("SELECT replace(registration_id::text, '-', '') AS rid, token FROM devices WHERE app_id = $1",
                                                  [app.id])
            var ridOf: [String: String] = [:]
            for row in rids { ridOf[try row.string("token")] = try row.string("rid") }

            let cases: [(String, Any, Set<Int>)] = [
                ("tag", ["tag": ["red", "green"]], Set(0..<6).union([9])),
                ("tag_and", ["tag_and": ["red", "blue"]], [4, 5]),
                ("tag_not", ["tag_not": ["red", "blue"]], [10, 11]),
                ("tag + tag_not", ["tag": ["blue"], "tag_not": ["green"]], [4, 6, 7, 8]),
                ("tag + tag_and", ["tag": ["red"], "tag_and": ["green"]], [0, 5]),
                ("alias", ["alias": ["alice", "nobody"]], [2, 11]),
                ("registration_id", ["registration_id": [ridOf[tokens[3]]!, ridOf[tokens[7]]!, "0123456789abcdef0123456789abcdef"]], [3, 7]),
                ("alias + tag", ["alias": ["alice"], "tag": ["red"]], [2]),
                ("all", "all", Set(0..<12)),
            ]
            for (name, audience, expected) in cases {
                relay.simulator.reset()
                let msgID = try await relay.accepted(app, ["platform": ["ios"], "audience": audience, "notification": ["alert": name]])
                let message = try await relay.waitUntilFinished(msgID)
                let hit = Set(relay.simulator.deliveries().filter { $0.msgID == msgID }.map(\.token))
                #expect(hit == Set(expected.map { tokens[$0] }), "\(name)")
                #expect(relay.simulator.stats.accepted == expected.count, "\(name)")
                #expect(try message.int("target_count") == expected.count, "\(name)")
                #expect(try message.int("sent_count") == expected.count, "\(name)")
            }
        }
    }

    @Test func noMatchingDeviceIs1011WithAMsgIDAndOtherPlatformsHaveNoTarget() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 2, prefix: "c1")
            let none = try await relay.push(app, ["platform": "all", "audience": ["tag": ["nobody"]], "notification": ["alert": "x"]])
            #expect(none.status == 400)
            #expect(none.errorCode == 1011)
            #expect((none.json["msg_id"] as? String).flatMap(Int64.init) != nil)
            // Sandbox pushes only target sandbox devices: there are none.
            let sandbox = try await relay.push(app, ["platform": "all", "audience": "all", "notification": ["alert": "x"],
                                                     "options": ["apns_production": false]])
            #expect(sandbox.errorCode == 1011)

            // No Android device either (AndroidDeliveryTests has them).
            let android = try await relay.push(app, ["platform": ["android"], "audience": "all", "notification": ["alert": "x"]])
            #expect(android.errorCode == 1011)
            // A platform this relay does not deliver to: accepted, nothing to send.
            let other = try await relay.accepted(app, ["platform": ["winphone"], "audience": "all", "notification": ["alert": "x"]])
            let message = try await relay.message(other)
            #expect(message["state"] == "done")
            #expect(try message.int("target_count") == 0)

            let invalid = try await relay.push(app, ["platform": "all", "audience": "all", "notification": ["alert": String(repeating: "x", count: 5000)]])
            #expect(invalid.errorCode == 1005)
            let validate = try await relay.request("POST", "/v3/push/validate", auth: app.auth,
                                                   json: ["platform": "all", "audience": "all", "notification": ["alert": "x"]])
            #expect(validate.status == 200)
            #expect((validate.json["msg_id"] as? String).flatMap(Int64.init) != nil)
            let stored = try await relay.pool.query("SELECT count(*) AS n FROM messages")
            #expect(try stored.first?.int("n") == 1, "only the winphone push was stored")
            #expect(relay.simulator.stats.streams == 0)
        }
    }

    @Test func deadTokensAreInvalidatedAndSkippedNextTime() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let live = try await relay.insertDevices(app, count: 20, prefix: "d1")
            let unregistered = try await relay.insertDevices(app, count: 5, prefix: "dead")
            let bad = try await relay.insertDevices(app, count: 3, prefix: "badd")
            let first = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "one"]])
            let message = try await relay.waitUntilFinished(first)
            #expect(try message.int("target_count") == 28)
            #expect(try message.int("sent_count") == 20)
            #expect(try message.int("invalidated_count") == 8)
            let failures = try await relay.pool.query("SELECT reason, count FROM message_failures WHERE message_id = $1 ORDER BY reason", [first])
            #expect(try failures.map { "\(try $0.string("reason"))=\(try $0.int("count"))" } == ["BadDeviceToken=3", "Unregistered=5"])
            let states = try await relay.pool.query("""
                SELECT token, active, invalidation_reason FROM devices WHERE app_id = $1 AND NOT active ORDER BY token
                """, [app.id])
            #expect(Set(try states.map { try $0.string("token") }) == Set(unregistered + bad))
            #expect(relay.simulator.stats.rejected == ["Unregistered": 5, "BadDeviceToken": 3])

            relay.simulator.reset()
            let second = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "two"]])
            let again = try await relay.waitUntilFinished(second)
            #expect(try again.int("target_count") == 20)
            #expect(try again.int("sent_count") == 20)
            #expect(relay.simulator.stats.streams == 20, "dead tokens are not sent again")
            #expect(Set(relay.simulator.deliveries().map(\.token)) == Set(live))
        }
    }

    @Test func aRetryStormStillDeliversEverything() async throws {
        try await PipelineHarness.with(simulate: { simulator in
            simulator.rate429 = 0.3
            simulator.rate500 = 0.2
            simulator.seed = 7
        }) { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 2_000, prefix: "e1")
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "storm"]])
            let message = try await relay.waitUntilFinished(msgID, timeout: .seconds(120))
            #expect(try message.int("sent_count") == 2_000)
            #expect(try message.int("failed_count") == 0)
            #expect(try message.int("retry_count") > 0)
            let stats = relay.simulator.stats
            #expect(stats.accepted == 2_000)
            #expect((stats.rejected["TooManyRequests"] ?? 0) > 0 && (stats.rejected["InternalServerError"] ?? 0) > 0)
            #expect(try message.int("retry_count") == stats.rejectedTotal, "every refusal was retried and counted")
            #expect(Set(relay.simulator.deliveries().map(\.token)) == Set(tokens))
        }
    }

    @Test func badgePlusOneIncrementsEachDevicesStoredBadge() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let zero = try await relay.insertDevices(app, count: 3, prefix: "f1", badge: 0)
            let five = try await relay.insertDevices(app, count: 3, prefix: "f2", badge: 5)
            for round in 1...2 {
                let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all",
                                                           "notification": ["ios": ["alert": "badge \(round)", "badge": "+1"]]])
                try await relay.waitUntilFinished(msgID)
                for token in zero { #expect(relay.simulator.deliveries(token: token).first?.badge == round) }
                for token in five { #expect(relay.simulator.deliveries(token: token).first?.badge == 5 + round) }
            }
            let stored = try await relay.pool.query("SELECT token, badge FROM devices WHERE app_id = $1", [app.id])
            for row in stored {
                let token = try row.string("token")
                #expect(try row.int("badge") == (zero.contains(token) ? 2 : 7))
            }
        }
    }

    /// Pushes racing to the same devices each add their "+1": the stored badge moves under a
    /// row lock when a chunk is leased, not after APNs answers, so no increment is lost.
    @Test func concurrentPlusOnePushesLoseNoIncrement() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 3, prefix: "f3", badge: 0)
            let pushes = 6
            let ids = try await withThrowingTaskGroup(of: Int64.self) { group in
                for round in 1...pushes {
                    group.addTask {
                        try await relay.accepted(app, ["platform": "ios", "audience": "all",
                                                       "notification": ["ios": ["alert": "race \(round)", "badge": "+1"]]])
                    }
                }
                return try await group.reduce(into: [Int64]()) { $0.append($1) }
            }
            for id in ids { try await relay.waitUntilFinished(id) }
            let stored = try await relay.pool.query("SELECT badge FROM devices WHERE app_id = $1", [app.id])
            #expect(stored.count == tokens.count)
            for row in stored { #expect(try row.int("badge") == pushes) }
            for token in tokens { #expect(relay.simulator.deliveries(token: token).first?.count == pushes) }
        }
    }

    /// A user's 100 trade alerts at once, each `+1`: accepted in shared transactions (group
    /// commit), their outcomes written in shared transactions, and the stored badge exactly
    /// 100.
    @Test func aHundredConcurrentPlusOnePushesToOneDeviceAddAHundred() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let token = try await relay.insertDevices(app, count: 1, prefix: "f4", badge: 0)[0]
            try await relay.pool.query("UPDATE devices SET alias = 'trader' WHERE app_id = $1", [app.id])
            let pushes = 100
            let ids = try await withThrowingTaskGroup(of: Int64.self) { group in
                for round in 1...pushes {
                    group.addTask {
                        try await relay.accepted(app, ["platform": "ios", "audience": ["alias": ["trader"]],
                                                       "notification": ["ios": ["alert": "fill \(round)", "badge": "+1"]]])
                    }
                }
                return try await group.reduce(into: [Int64]()) { $0.append($1) }
            }
            #expect(Set(ids).count == pushes)
            for id in ids { try await relay.waitUntilFinished(id) }
            #expect(try await relay.pool.query("SELECT badge FROM devices WHERE app_id = $1", [app.id])[0].int("badge") == pushes)
            let sent = try await relay.pool.query("SELECT sum(sent_count) AS n FROM messages WHERE app_id = $1", [app.id])[0]
            #expect(try sent.int("n") == pushes)
            #expect(relay.simulator.deliveries(token: token).first?.count == pushes)
        }
    }

    @Test func theSameCIDAnswersTheSameAndSendsOnce() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 50, prefix: "a7")
            let body = try JSONSerialization.data(withJSONObject: [
                "platform": "ios", "audience": "all", "notification": ["alert": "once"], "cid": "order-42", "options": ["sendno": 9],
            ] as [String: Any])
            // Concurrent retries of one request, as an SDK timing out would send them.
            let replies = try await withThrowingTaskGroup(of: PipelineHarness.Reply.self) { group in
                for _ in 0..<8 { group.addTask { try await relay.request("POST", "/v3/push", auth: app.auth, body: body) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let ids = Set(replies.compactMap { $0.json["msg_id"] as? String })
            #expect(replies.allSatisfy { $0.status == 200 && $0.json["sendno"] as? String == "9" })
            #expect(ids.count == 1)
            let msgID = try #require(ids.first.flatMap(Int64.init))
            try await relay.waitUntilFinished(msgID)
            let later = try await relay.request("POST", "/v3/push", auth: app.auth, body: body)
            #expect(later.json["msg_id"] as? String == String(msgID))
            let rows = try await relay.pool.query("SELECT count(*) AS n FROM messages")
            #expect(try rows.first?.int("n") == 1)
            #expect(relay.simulator.stats.accepted == 50)
            #expect(relay.simulator.deliveries().allSatisfy { $0.count == 1 })
            #expect(Set(relay.simulator.deliveries().map(\.token)) == Set(tokens))
        }
    }

    @Test func withdrawingMidBroadcastStopsWhatIsNotSent() async throws {
        try await PipelineHarness.with(simulate: { $0.latencyMilliseconds = 20 }, tune: { pipeline in
            pipeline.chunkSize = 50
            pipeline.slots = 1
            pipeline.targetedSlots = 1
            pipeline.apnsMaxInFlight = 10
        }) { relay in
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 5_000, prefix: "a8")
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "oops"]])
            try await poll(timeout: .seconds(30), "first deliveries") { relay.simulator.stats.accepted >= 100 ? true : nil }
            let withdrawn = try await relay.request("DELETE", "/v3/push/\(msgID)", auth: app.auth)
            #expect(withdrawn.status == 200)
            let message = try await relay.waitUntilFinished(msgID)
            #expect(message["state"] == "withdrawn")
            // What was in flight finishes; nothing else goes out.
            try await poll(timeout: .seconds(10), "chunks in hand to finish") {
                try await relay.pool.query("SELECT 1 FROM push_chunks WHERE message_id = $1 AND state <> 'done'", [msgID]).isEmpty ? true : nil
            }
            let settled = relay.simulator.stats.accepted
            try await Task.sleep(for: .milliseconds(300))
            #expect(relay.simulator.stats.accepted == settled)
            #expect(settled < 1_000, "sent \(settled) of 5000")
            let again = try await relay.request("DELETE", "/v3/push/\(msgID)", auth: app.auth)
            #expect(again.status == 200)
            let unknown = try await relay.request("DELETE", "/v3/push/12345", auth: app.auth)
            #expect(unknown.status == 404)
        }
    }

    /// Deliveries are the record of "delivered to": a device registered long ago is online
    /// after a push reached it, and active in that day's user statistics; deleting the app
    /// removes its deliveries (they carry no foreign key).
    @Test func deliveriesCountAsSightingsAndLeaveWithTheirApp() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 3, prefix: "a9")
            try await relay.pool.query("UPDATE devices SET last_seen_at = now() - interval '3 days' WHERE app_id = $1", [app.id])
            let rids = try await relay.pool.query("SELECT replace(registration_id::text, '-', '') AS rid FROM devices WHERE app_id = $1",
                                                  [app.id]).map { try $0.string("rid") }
            let before = try await relay.request("POST", "/v3/devices/status", auth: app.auth, json: ["registration_ids": rids])
            #expect(rids.allSatisfy { (before.json[$0] as? [String: Any])?["online"] as? Bool == false })
            let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
            func activeToday() async throws -> Int? {
                let users = try await relay.request("GET", "/v3/users?time_unit=DAY&start=\(today)&duration=1", auth: app.auth)
                return ((users.json["items"] as? [[String: Any]])?.first?["ios"] as? [String: Any])?["active"] as? Int ?? 0
            }
            #expect(try await activeToday() == 0, "nobody seen today yet")

            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "hi"]])
            #expect(try await relay.waitUntilFinished(msgID)["state"] == "done")
            let after = try await relay.request("POST", "/v3/devices/status", auth: app.auth, json: ["registration_ids": rids])
            #expect(rids.allSatisfy { (after.json[$0] as? [String: Any])?["online"] as? Bool == true })
            #expect(try await activeToday() == 3)

            func spans() async throws -> Int? {
                try await relay.pool.query("SELECT count(*) AS n FROM delivery_spans WHERE app_id = $1", [app.id]).first?.int("n")
            }
            #expect(try await spans() ?? 0 > 0)

            #expect(try await relay.request("DELETE", "/admin/v1/apps/\(app.key)").status == 200)
            let left = try await relay.pool.query("SELECT count(*) AS n FROM deliveries WHERE message_id = $1", [msgID])
            #expect(try left.first?.int("n") == 0)
            #expect(try await spans() == 0, "the app's delivery spans leave with it")
        }
    }

    /// A round slower than the lease (APNs answering after 3 s, leases of 2 s): the worker
    /// keeps extending its lease, so the chunk is not taken back and sent a second time.
    @Test func aRoundLongerThanTheLeaseIsNotSentTwice() async throws {
        try await PipelineHarness.with(simulate: { $0.latencyMilliseconds = 3_000 }, tune: { $0.leaseSeconds = 2 }) { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 20, prefix: "aa")
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "slow"]])
            let message = try await relay.waitUntilFinished(msgID)
            #expect(try message.int("sent_count") == 20)
            let deliveries = relay.simulator.deliveries()
            #expect(Set(deliveries.map(\.token)) == Set(tokens))
            #expect(deliveries.allSatisfy { $0.count == 1 }, "sent twice: \(deliveries.filter { $0.count > 1 }.count) devices")
            let leases = try await relay.pool.query("SELECT max(leases) AS n FROM push_chunks WHERE message_id = $1", [msgID])
            #expect(try leases.first?.int("n") == 1)
        }
    }
}
