import Foundation
import Testing

/// Documented parts of a push that this relay does not deliver: accepted, stored with the
/// message, and named as `ignored` by the answer, the message's reports (admin and JPush's
/// `/v3/messages/detail`) and the log.
@Suite struct IgnoredPartsTests {
    @Test func theAnswerTheReportsAndTheLogNameTheIgnoredParts() async throws {
        let capture = SecretsTests.Capture()
        try await PipelineHarness.with(logger: capture.logger) { relay in
            let app = try await relay.createApp()
            let token = try await relay.insertDevices(app, count: 1, prefix: "c1")[0]
            try await relay.pool.query("UPDATE devices SET alias = 'carol' WHERE token = $1", [token])

            // A plain push: JPush's answer exactly, no extra key.
            let plain = try await relay.push(app, ["platform": "ios", "audience": ["alias": ["carol"]], "notification": ["alert": "plain"]])
            #expect(plain.status == 200)
            #expect(Set(plain.json.keys) == ["sendno", "msg_id"])
            let plainID = try #require((plain.json["msg_id"] as? String).flatMap(Int64.init))
            // The simulator keeps a token's last delivery: let this one land first.
            try await relay.waitUntilFinished(plainID)

            let body: [String: Any] = [
                "platform": "all", "audience": ["alias": ["carol"]],
                "notification": ["alert": "mixed", "android": ["alert": "a", "builder_id": 1]],
                "sms_message": ["temp_id": 1250, "delay_time": 60],
                "options": ["third_party_channel": ["oppo": ["channel_id": "orders"]], "sendno": 5],
            ]
            // The Android block is delivered (through FCM) but for its JPush-only builder_id;
            // of the phone makers' channels only FCM's is used.
            let expected = ["notification.android.builder_id", "options.third_party_channel.oppo", "sms_message"]
            let validated = try await relay.request("POST", "/v3/push/validate", auth: app.auth, json: body)
            #expect(validated.status == 200)
            #expect(validated.json["ignored"] as? [String] == expected)
            let reply = try await relay.push(app, body)
            #expect(reply.status == 200)
            #expect(reply.json["sendno"] as? String == "5")
            #expect(reply.json["ignored"] as? [String] == expected)
            let msgID = try #require((reply.json["msg_id"] as? String).flatMap(Int64.init))
            try await relay.waitUntilFinished(msgID)
            #expect(relay.simulator.deliveries(token: token).first { $0.msgID == msgID }?.alert == "mixed")

            let logged = capture.all.compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: String]
            }.filter { $0["msg"] == "push accepted with parts this relay does not deliver" }
            #expect(logged.map { [$0["msg_id"], $0["ignored"], $0["app_key"]] }
                == [[String(msgID), expected.joined(separator: ","), app.key]])
            let report = try await relay.request("GET", "/admin/v1/messages/\(msgID)")
            #expect(report.json["ignored"] as? [String] == expected)
            #expect(try await relay.request("GET", "/admin/v1/messages/\(plainID)").json["ignored"] as? [String] == [])
            let detail = try await relay.request("GET", "/v3/messages/detail?msg_ids=\(msgID),\(plainID)", auth: app.auth)
            let details = try #require(try JSONSerialization.jsonObject(with: detail.body) as? [[String: Any]])
            #expect(details.map { $0["ignored"] as? [String] } == [expected, []])

            let batch = try await relay.request("POST", "/v3/push/batch/alias/single", auth: app.auth, json: ["pushlist": [
                "cid-9": ["platform": "ios", "target": "carol", "notification": ["alert": "batch"], "callback": ["url": "https://example.com"]],
            ]])
            #expect((batch.json["cid-9"] as? [String: Any])?["ignored"] as? [String] == ["callback"])
        }
    }

    @Test func aPushWithContentOnlyForOthersSendsNothingToIOS() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let token = try await relay.insertDevices(app, count: 1, prefix: "c2")[0]
            let reply = try await relay.push(app, ["platform": "all", "audience": "all",
                                                   "notification": ["hmos": ["alert": "only for HarmonyOS"]]])
            #expect(reply.status == 200)
            #expect(reply.json["ignored"] as? [String] == ["notification.hmos"])
            let msgID = try #require((reply.json["msg_id"] as? String).flatMap(Int64.init))
            #expect(try await relay.waitUntilFinished(msgID)["state"] == "done")
            #expect(relay.simulator.deliveries(token: token).isEmpty)
        }
    }

    @Test func aGroupPushNamesTheIgnoredPartsPerApp() async throws {
        try await PipelineHarness.with { relay in
            let apps = [try await relay.createApp("one"), try await relay.createApp("two")]
            for (index, app) in apps.enumerated() { try await relay.insertDevices(app, count: 1, prefix: "d\(index)") }
            let created = try await relay.request("POST", "/admin/v1/groups", json: ["name": "family", "app_keys": apps.map(\.key)])
            let groupKey = try #require(created.json["group_key"] as? String)
            let secret = try #require(created.json["group_secret"] as? String)
            let reply = try await relay.request("POST", "/v3/grouppush", auth: .basic("group-\(groupKey)", secret), json: [
                "platform": "all", "audience": "all", "notification": ["alert": "family", "voip": ["k": "v"]],
                "callback": ["url": "https://example.com/cb"],
            ])
            #expect(reply.status == 200)
            for app in apps {
                #expect((reply.json[app.key] as? [String: Any])?["ignored"] as? [String] == ["callback", "notification.voip"])
            }
        }
    }
}
