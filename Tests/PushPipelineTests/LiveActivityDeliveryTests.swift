import APNSSimulator
import Foundation
@testable import RelayAPI
@testable import RelayStore
import Testing

/// End to end (issue 29): devices register ActivityKit tokens and activity states; a start to
/// an alias reaches its push-to-start tokens, an update and an end by activity id reach the
/// activity's update tokens, each with `apns-push-type: liveactivity`, the
/// `.push-type.liveactivity` topic and the `aps` Apple documents, on a simulator that refuses
/// a token sent another kind of push (`--token-kind-prefix liveactivity=HEX`). Rotation, ended
/// activities, refused tokens, coalescing and every refusal of the API.
@Suite struct LiveActivityDeliveryTests {
    static let prefix = "aa"
    static let topic = PipelineHarness.topic + ".push-type.liveactivity"

    /// An ActivityKit token the simulator knows as one: the prefix, `kind`, then `n` in hex.
    static func token(_ kind: String, _ n: Int) -> String {
        let tail = kind + String(format: "%08x", n)
        return prefix + String(repeating: "0", count: 64 - prefix.count - tail.count) + tail
    }

    static func simulate(_ configuration: inout APNSSimulatorConfiguration) {
        configuration.tokenKindPrefixes["liveactivity"] = prefix
        configuration.unregisteredPrefix = "aadead"
    }

    /// The app's devices' registration ids, in id order.
    private func rids(_ relay: PipelineHarness, _ app: PipelineHarness.App) async throws -> [String] {
        try await relay.relay.pool.query(
            "SELECT replace(registration_id::text, '-', '') AS rid FROM devices WHERE app_id = $1 ORDER BY id", [app.id]
        ).map { try $0.string("rid") }
    }

    private func aps(_ delivery: APNSDelivery) -> [String: Any] { delivery.json["aps"] as? [String: Any] ?? [:] }

    /// The simulator's last accepted push to `token` (its `count` says how many it took).
    private func latest(_ relay: PipelineHarness, _ token: String) -> APNSDelivery? {
        relay.simulator.deliveries(token: token).first
    }

    /// The last push to `token` once it took `count`.
    private func waitForDeliveries(_ relay: PipelineHarness, _ token: String, count: Int) async throws -> APNSDelivery {
        try await poll(timeout: .seconds(30), "\(count) pushes to \(token)") {
            latest(relay, token).flatMap { $0.count >= count ? $0 : nil }
        }
    }

    @Test func aStartToAnAliasThenAnUpdateAndAnEndByActivityReachTheirTokens() async throws {
        try await PipelineHarness.with(simulate: Self.simulate) { relay in
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 3, prefix: "d1")
            let rids = try await rids(relay, app)
            try await relay.relay.pool.query("UPDATE devices SET alias = CASE WHEN id = (SELECT min(id) FROM devices WHERE app_id = $1) THEN 'u1' ELSE 'u2' END WHERE app_id = $1", [app.id])
            // Device 0 (u1) and device 2 (u2) hold start tokens for the type; device 1 (u2) for another.
            let startTokens = [Self.token("51", 0), Self.token("51", 1), Self.token("51", 2)]
            for (index, type) in [(0, "DeliveryAttributes"), (1, "OtherAttributes"), (2, "DeliveryAttributes")] {
                let reply = try await relay.request("POST", "/v3/live-activities/start-tokens", auth: app.auth, json: [
                    "registration_id": rids[index], "attributes_type": type, "token": startTokens[index],
                ])
                #expect(reply.status == 200, "\(reply.text)")
            }

            let start = try await relay.request("POST", "/v3/live-activities", auth: app.auth, json: [
                "event": "start", "activity_id": "order-1", "audience": ["alias": ["u1"]], "attributes_type": "DeliveryAttributes",
                "attributes": ["order": 1], "content_state": ["eta": 12], "alert": ["title": "Order", "body": "On its way"],
            ])
            #expect(start.status == 200, "\(start.text)")
            let startID = try #require((start.json["msg_id"] as? String).flatMap(Int64.init))
            let started = try await relay.waitUntilFinished(startID)
            #expect(try started.int("sent_count") == 1)
            let first = try await waitForDeliveries(relay, startTokens[0], count: 1)
            #expect(first.pushType == "liveactivity" && first.topic == Self.topic && first.priority == "10")
            #expect(aps(first)["event"] as? String == "start")
            #expect(aps(first)["attributes-type"] as? String == "DeliveryAttributes")
            #expect((aps(first)["attributes"] as? [String: Any])?["order"] as? Int == 1)
            #expect((aps(first)["content-state"] as? [String: Any])?["eta"] as? Int == 12)
            #expect((aps(first)["alert"] as? [String: Any])?["body"] as? String == "On its way")
            #expect(aps(first)["input-push-token"] as? Int == 1)
            #expect((aps(first)["timestamp"] as? Int).map { abs($0 - Int(Date().timeIntervalSince1970)) < 120 } == true)
            #expect(latest(relay, startTokens[1]) == nil && latest(relay, startTokens[2]) == nil)

            // The started activity reports its update token; an update and an end reach it.
            let updateToken = Self.token("c1", 1)
            let registered = try await relay.request("POST", "/v3/live-activities/order-1/tokens", auth: app.auth, json: [
                "registration_id": rids[0], "token": updateToken,
            ])
            #expect(registered.status == 200, "\(registered.text)")
            let update = try await relay.request("POST", "/v3/live-activities/order-1", auth: app.auth, json: [
                "event": "update", "content_state": ["eta": 5], "stale_date": 1_900_000_000,
            ])
            #expect(update.status == 200, "\(update.text)")
            let updated = try await waitForDeliveries(relay, updateToken, count: 1)
            #expect(updated.pushType == "liveactivity" && updated.topic == Self.topic && updated.priority == "5")
            #expect(aps(updated)["event"] as? String == "update")
            #expect(aps(updated)["stale-date"] as? Int == 1_900_000_000)
            #expect((aps(updated)["content-state"] as? [String: Any])?["eta"] as? Int == 5)
            #expect(aps(updated)["attributes-type"] == nil)

            let end = try await relay.request("POST", "/v3/live-activities/order-1", auth: app.auth, json: [
                "event": "end", "content_state": ["eta": 0], "dismissal_date": 1_900_000_600, "options": ["apns_priority": 10],
            ])
            #expect(end.status == 200, "\(end.text)")
            let ended = try await waitForDeliveries(relay, updateToken, count: 2)
            #expect(ended.priority == "10")
            #expect(aps(ended)["event"] as? String == "end")
            #expect(aps(ended)["dismissal-date"] as? Int == 1_900_000_600)
            #expect(relay.simulator.stats.rejectedTotal == 0)

            // The activity's report: its token, and its three messages with their counts.
            for reply in [update, end] { try await relay.waitUntilFinished(try #require((reply.json["msg_id"] as? String).flatMap(Int64.init))) }
            let report = try await relay.request("GET", "/v3/live-activities/order-1", auth: app.auth)
            #expect(report.status == 200, "\(report.text)")
            #expect((report.json["devices"] as? [String: Any])?["active"] as? Int == 1)
            let messages = report.json["messages"] as? [[String: Any]] ?? []
            #expect(messages.map { $0["event"] as? String } == ["end", "update", "start"])
            #expect(messages.allSatisfy { $0["sent"] as? Int == 1 && $0["failed"] as? Int == 0 })
            #expect(try await relay.request("GET", "/v3/live-activities/nothing-here", auth: app.auth).status == 404)
        }
    }

    @Test func aRotatedTokenReplacesTheOldAndEndedActivitiesAreNotPushed() async throws {
        try await PipelineHarness.with(simulate: Self.simulate) { relay in
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 2, prefix: "d2")
            let rids = try await rids(relay, app)
            let old = Self.token("01", 0), rotated = Self.token("01", 1), other = Self.token("02", 0)
            for (rid, token) in [(rids[0], old), (rids[0], rotated), (rids[1], other)] {
                let reply = try await relay.request("POST", "/v3/live-activities/game-7/tokens", auth: app.auth, json: ["registration_id": rid, "token": token])
                #expect(reply.status == 200, "\(reply.text)")
            }
            let update = try await relay.request("POST", "/v3/live-activities/game-7", auth: app.auth, json: ["event": "update", "content_state": ["score": "1-0"]])
            #expect(update.status == 200, "\(update.text)")
            try await relay.waitUntilFinished(try #require((update.json["msg_id"] as? String).flatMap(Int64.init)))
            #expect(latest(relay, rotated)?.count == 1)
            #expect(latest(relay, other)?.count == 1)
            #expect(latest(relay, old) == nil)

            // Device 1 ended the activity; the next update goes to device 0 only.
            let state = try await relay.request("PUT", "/v3/live-activities/game-7/state", auth: app.auth, json: ["registration_id": rids[1], "state": "ended"])
            #expect(state.status == 200, "\(state.text)")
            let second = try await relay.request("POST", "/v3/live-activities/game-7", auth: app.auth, json: [
                "event": "update", "content_state": ["score": "2-0"], "options": ["apns_priority": 10],
            ])
            #expect(second.status == 200, "\(second.text)")
            let message = try await relay.waitUntilFinished(try #require((second.json["msg_id"] as? String).flatMap(Int64.init)))
            #expect(try message.int("target_count") == 1)
            #expect(latest(relay, rotated)?.count == 2)
            #expect(latest(relay, other)?.count == 1)

            // Nobody left with the activity active: 1011, like any audience without devices.
            _ = try await relay.request("PUT", "/v3/live-activities/game-7/state", auth: app.auth, json: ["registration_id": rids[0], "state": "dismissed"])
            let none = try await relay.request("POST", "/v3/live-activities/game-7", auth: app.auth, json: ["event": "end", "content_state": [:]])
            #expect(none.status == 400)
            #expect(none.errorCode == 1011)
        }
    }

    @Test func aTokenAPNsRefusesIsDropped() async throws {
        try await PipelineHarness.with(simulate: Self.simulate) { relay in
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 1, prefix: "d3")
            let rid = try await rids(relay, app)[0]
            let dead = "aadead" + String(repeating: "0", count: 58)
            #expect(try await relay.request("POST", "/v3/live-activities/ride-3/tokens", auth: app.auth, json: ["registration_id": rid, "token": dead]).status == 200)
            let update = try await relay.request("POST", "/v3/live-activities/ride-3", auth: app.auth, json: ["event": "update", "content_state": ["km": 2]])
            let message = try await relay.waitUntilFinished(try #require((update.json["msg_id"] as? String).flatMap(Int64.init)))
            #expect(try message.int("invalidated_count") == 1)
            let left = try await relay.relay.pool.query("SELECT count(*) AS n FROM live_activity_tokens WHERE app_id = $1", [app.id])
            #expect(try left[0].int("n") == 0)
            let device = try #require(try await relay.relay.pool.query("SELECT active FROM devices WHERE app_id = $1", [app.id]).first)
            #expect(try device.bool("active"), "the device and its notification token stay")
            let again = try await relay.request("POST", "/v3/live-activities/ride-3", auth: app.auth, json: ["event": "update", "content_state": ["km": 3]])
            #expect(again.errorCode == 1011)
        }
    }

    @Test func updatesFasterThanTheIntervalAreCoalesced() async throws {
        try await PipelineHarness.with(simulate: Self.simulate, tune: { $0.liveActivityMinIntervalMS = 1500 }) { relay in
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 1, prefix: "d4")
            let rid = try await rids(relay, app)[0]
            let token = Self.token("c0", 1)
            #expect(try await relay.request("POST", "/v3/live-activities/match/tokens", auth: app.auth, json: ["registration_id": rid, "token": token]).status == 200)
            var ids: [Int64] = []
            for score in 1...3 {
                let reply = try await relay.request("POST", "/v3/live-activities/match", auth: app.auth, json: ["event": "update", "content_state": ["score": score]])
                #expect(reply.status == 200, "\(reply.text)")
                ids.append(try #require((reply.json["msg_id"] as? String).flatMap(Int64.init)))
            }
            // The first goes at once; the second waits for its turn and the third replaces it.
            let sent = try await waitForDeliveries(relay, token, count: 2)
            #expect((aps(sent)["content-state"] as? [String: Any])?["score"] as? Int == 3)
            #expect(try await relay.waitUntilFinished(ids[0]).int("sent_count") == 1)
            #expect(try await relay.waitUntilFinished(ids[2]).int("sent_count") == 1)
            #expect(try await relay.message(ids[1]).string("state") == "withdrawn")
            #expect(latest(relay, token)?.count == 2)

            // The dashboard's app page shows the activity with its sends and the coalesced one.
            let activities = try await LiveActivityRepository(pool: relay.pool).recent(appKey: app.key)
            #expect(activities == [LiveActivitySummary(activityID: "match", attributesType: nil, messages: 3, sent: 2, failed: 0, coalesced: 1)])
            let dashboard = try #require(try await DashboardApp.read(key: app.key, pool: relay.pool).first)
            let page = DashboardPages.app(dashboard, bars: [], failures: [:], messages: [], now: Date(), liveActivities: activities, csrf: "c")
            #expect(page.contains("<h2>Live Activities</h2>") && page.contains("<code>match</code>"))
            #expect(!DashboardPages.app(dashboard, bars: [], failures: [:], messages: [], now: Date(), csrf: "c").contains("Live Activities"))
        }
    }

    @Test func badInputGetsAClearJPushError() async throws {
        try await PipelineHarness.with(simulate: Self.simulate) { relay in
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 1, prefix: "d5")
            let rid = try await rids(relay, app)[0]
            #expect(try await relay.request("POST", "/v3/live-activities/a1/tokens", auth: app.auth, json: ["registration_id": rid, "token": Self.token("b0", 1)]).status == 200)
            let cases: [(String, [String: Any], Int)] = [
                ("/v3/live-activities/a1", ["event": "pause", "content_state": [:]], 1003),
                ("/v3/live-activities/a1", ["event": "update"], 1002),
                ("/v3/live-activities/a1", ["event": "update", "content_state": ["s": String(repeating: "x", count: 5000)]], 1005),
                ("/v3/live-activities/a1", ["event": "update", "content_state": [:], "options": ["apns_priority": 1]], 1003),
                ("/v3/live-activities/a1", ["event": "start", "content_state": [:]], 1003),
                ("/v3/live-activities", ["event": "start", "activity_id": "a2", "content_state": [:], "attributes": [:], "audience": "all"], 1002),
                ("/v3/live-activities", ["event": "start", "activity_id": "a2", "content_state": [:], "attributes_type": "T", "attributes": [:]], 1002),
                ("/v3/live-activities", ["event": "start", "activity_id": "a2", "content_state": [:], "attributes_type": "T", "attributes": [:], "audience": "all"], 1011),
                ("/v3/live-activities/unknown-activity", ["event": "update", "content_state": [:]], 1011),
            ]
            for (path, body, code) in cases {
                let reply = try await relay.request("POST", path, auth: app.auth, json: body)
                #expect(reply.status == 400, "\(path) \(body): \(reply.text)")
                #expect(reply.errorCode == code, "\(path) \(body): \(reply.text)")
            }
            let tokens: [(String, String, [String: Any], Int)] = [
                ("POST", "/v3/live-activities/start-tokens", ["registration_id": rid, "attributes_type": "T", "token": "xyz"], 7002),
                ("POST", "/v3/live-activities/start-tokens", ["registration_id": rid, "attributes_type": "no spaces", "token": Self.token("b0", 2)], 7002),
                ("POST", "/v3/live-activities/a1/tokens", ["registration_id": "0123456789abcdef0123456789abcdef", "token": Self.token("b0", 3)], 7002),
                ("PUT", "/v3/live-activities/a1/state", ["registration_id": rid, "state": "paused"], 7002),
            ]
            for (method, path, body, code) in tokens {
                let reply = try await relay.request(method, path, auth: app.auth, json: body)
                #expect(reply.status == 400, "\(path) \(body): \(reply.text)")
                #expect(reply.errorCode == code, "\(path) \(body): \(reply.text)")
            }

            // An app whose APNs credential is a certificate cannot send Live Activities.
            try await relay.relay.pool.query(
                "UPDATE apns_credentials SET auth = 'certificate', certificate_expires_at = now() + interval '1 year' WHERE app_id = $1", [app.id])
            let refused = try await relay.request("POST", "/v3/live-activities/a1", auth: app.auth, json: ["event": "update", "content_state": [:]])
            #expect(refused.status == 400)
            #expect(refused.errorCode == 1003)
            #expect(refused.text.contains("token (.p8) authentication"))
            #expect(relay.simulator.deliveries().isEmpty)
        }
    }

    /// From the phone: the device secret registers the tokens and the state; `/v3/push` takes
    /// `live_activity` in PushRelay's shape too.
    @Test func aDeviceRegistersItsTokensWithItsSecret() async throws {
        try await PipelineHarness.with(simulate: Self.simulate) { relay in
            let app = try await relay.createApp()
            let (clientKey, rid, secret) = try await relay.registerFromThePhone(app, token: PipelineHarness.token(prefix: "c6", index: 1))
            let startToken = Self.token("e1", 1), updateToken = Self.token("e2", 1)
            let startBody: [String: Any] = ["registration_id": rid, "attributes_type": "TimerAttributes", "token": startToken]
            #expect(try await relay.request("POST", "/client/v1/live-activities/start-tokens", auth: .bearer(clientKey), json: startBody).status == 403)
            #expect(try await relay.request("POST", "/client/v1/live-activities/start-tokens", auth: .bearer(secret), json: startBody).status == 200)
            let tokenReply = try await relay.request("POST", "/client/v1/live-activities/timer-1/tokens", auth: .bearer(secret),
                                                     json: ["registration_id": rid, "token": updateToken])
            #expect(tokenReply.status == 200, "\(tokenReply.text)")

            let push = try await relay.accepted(app, [
                "platform": "ios", "audience": ["registration_id": [rid]],
                "live_activity": ["event": "start", "activity_id": "timer-1", "attributes-type": "TimerAttributes", "attributes": [:], "content-state": ["left": 60]],
            ])
            try await relay.waitUntilFinished(push)
            #expect(latest(relay, startToken)?.count == 1)

            let state = try await relay.request("PUT", "/client/v1/live-activities/timer-1/state", auth: .bearer(secret), json: ["registration_id": rid, "state": "ended"])
            #expect(state.status == 200, "\(state.text)")
            let update = try await relay.request("POST", "/v3/live-activities/timer-1", auth: app.auth, json: ["event": "update", "content_state": ["left": 30]])
            #expect(update.errorCode == 1011, "an ended activity is not pushed")
            #expect(latest(relay, updateToken) == nil)
        }
    }
}
