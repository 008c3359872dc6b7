import APNSSimulator
import Foundation
import PostgresStore
import RelayTestSupport
import Testing

/// The push API around the pipeline: batch pushes, groups, credential pauses.
@Suite(.serialized) struct PushAPITests {
    /// With polling all but off, a push still goes out at once: the worker is woken by the
    /// NOTIFY of the accepting transaction on its LISTEN connection.
    @Test func workersWakeOnNotifyNotOnPolling() async throws {
        try await PipelineHarness.with(tune: { $0.pollInterval = .seconds(120) }) { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 3, prefix: "aa")
            for (index, token) in tokens.enumerated() {
                try await relay.pool.query("UPDATE devices SET alias = $1 WHERE token = $2", ["user\(index)", token])
            }
            for (index, token) in tokens.enumerated() {
                let msgID = try await relay.accepted(app, ["platform": "ios", "audience": ["alias": ["user\(index)"]],
                                                           "notification": ["alert": "now"]])
                try await poll(timeout: .seconds(5), "the push to arrive without polling") {
                    relay.simulator.deliveries(token: token).first?.msgID == msgID ? true : nil
                }
            }
            // A broadcast is resolved by a worker woken the same way.
            let broadcast = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "all"]])
            try await relay.waitUntilFinished(broadcast, timeout: .seconds(5))
        }
    }

    @Test func batchPushesAnswerPerCID() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 3, prefix: "ab")
            try await relay.pool.query("UPDATE devices SET alias = 'bob' WHERE token = $1", [tokens[1]])
            let rid = try await relay.pool.query("SELECT replace(registration_id::text, '-', '') AS rid FROM devices WHERE token = $1",
                                                 [tokens[2]]).first!.string("rid")
            let byRID = try await relay.request("POST", "/v3/push/batch/regid/single", auth: app.auth, json: ["pushlist": [
                "cid-1": ["platform": "ios", "target": rid, "notification": ["alert": "for rid"]],
                "cid-2": ["platform": "ios", "target": "ffffffffffffffffffffffffffffffff", "notification": ["alert": "nobody"]],
                "cid-3": ["platform": "ios", "target": rid],
            ]])
            #expect(byRID.status == 200)
            let first = try #require(byRID.json["cid-1"] as? [String: Any])
            let msgID = try #require((first["msg_id"] as? String).flatMap(Int64.init))
            #expect(((byRID.json["cid-2"] as? [String: Any])?["error"] as? [String: Any])?["code"] as? Int == 1011)
            #expect(((byRID.json["cid-3"] as? [String: Any])?["error"] as? [String: Any])?["code"] as? Int == 1002)
            try await relay.waitUntilFinished(msgID)
            #expect(relay.simulator.deliveries(token: tokens[2]).first?.alert == "for rid")

            let byAlias = try await relay.request("POST", "/v3/push/batch/alias/single", auth: app.auth, json: ["pushlist": [
                "cid-4": ["platform": "ios", "target": "bob", "notification": ["alert": "for bob"]],
            ]])
            let aliasEntry = byAlias.json["cid-4"] as? [String: Any]
            let aliasID = try #require((aliasEntry?["msg_id"] as? String).flatMap { Int64($0) })
            try await relay.waitUntilFinished(aliasID)
            #expect(relay.simulator.deliveries(token: tokens[1]).first?.alert == "for bob")
            #expect(relay.simulator.deliveries(token: tokens[0]).isEmpty)
            // A pushlist entry's key is its cid: the same batch again sends nothing new.
            let repeated = try await relay.request("POST", "/v3/push/batch/alias/single", auth: app.auth, json: ["pushlist": [
                "cid-4": ["platform": "ios", "target": "bob", "notification": ["alert": "for bob"]],
            ]])
            #expect((repeated.json["cid-4"] as? [String: Any])?["msg_id"] as? String == String(aliasID))
            #expect(relay.simulator.stats.accepted == 2)
        }
    }

    @Test func aGroupPushReachesEveryAppOfTheGroup() async throws {
        try await PipelineHarness.with { relay in
            let first = try await relay.createApp("one")
            let second = try await relay.createApp("two")
            let outsider = try await relay.createApp("three")
            let one = try await relay.insertDevices(first, count: 2, prefix: "a9")
            let two = try await relay.insertDevices(second, count: 3, prefix: "b9")
            try await relay.insertDevices(outsider, count: 1, prefix: "c9")
            let created = try await relay.request("POST", "/admin/v1/groups", json: ["name": "family", "app_keys": [first.key, second.key]])
            #expect(created.status == 201)
            let groupKey = try #require(created.json["group_key"] as? String)
            let secret = try #require(created.json["group_secret"] as? String)

            let denied = try await relay.request("POST", "/v3/grouppush", auth: .basic("group-\(groupKey)", "wrong"),
                                                 json: ["platform": "all", "audience": "all", "notification": ["alert": "x"]])
            #expect(denied.status == 401)
            let reply = try await relay.request("POST", "/v3/grouppush", auth: .basic("group-\(groupKey)", secret),
                                                json: ["platform": "all", "audience": "all", "notification": ["alert": "to the family"]])
            #expect(reply.status == 200)
            #expect(reply.json["group_msgid"] as? String != nil)
            for app in [first, second] {
                let entry = try #require(reply.json[app.key] as? [String: Any])
                let msgID = try #require((entry["msg_id"] as? String).flatMap(Int64.init))
                try await relay.waitUntilFinished(msgID)
            }
            #expect(reply.json[outsider.key] == nil)
            #expect(Set(relay.simulator.deliveries().map(\.token)) == Set(one + two))

            // Looked up by its group_msgid, once delivered: the group's figures and each app's msg_id.
            let groupMsgID = try #require(reply.json["group_msgid"] as? String)
            let detail = try await relay.request("GET", "/v3/group/messages/detail?group_msgids=\(groupMsgID)",
                                                 auth: .basic("group-\(groupKey)", secret))
            let item = try #require(((try? JSONSerialization.jsonObject(with: detail.body)) as? [[String: Any]])?.first)
            #expect((item["ios"] as? [String: Any])?["apns_sent"] as? Int == 5 && (item["ios"] as? [String: Any])?["apns_target"] as? Int == 5)
            let listed = try await relay.request("GET", "/admin/v1/groups/\(groupKey)/messages")
            let push = try #require((listed.json["messages"] as? [[String: Any]])?.first)
            #expect(push["group_msgid"] as? String == groupMsgID && push["sent"] as? Int == 5)
            let parts = try #require(push["apps"] as? [[String: Any]])
            for app in [first, second] {
                let part = parts.first { $0["app_key"] as? String == app.key }
                #expect(part?["msg_id"] as? String == (reply.json[app.key] as? [String: Any])?["msg_id"] as? String && part?["state"] as? String == "done")
            }
        }
    }

    @Test func aRefusedCredentialPausesTheAppUntilANewOneIsUploaded() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 30, prefix: "cd")
            // A key the simulator does not know: APNs answers 403 InvalidProviderToken.
            let otherKey = try await TestAPNs.makeKey(in: relay.directory.appendingPathComponent("other", isDirectory: true).creatingDirectory())
            let wrong = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/apns", json: [
                "auth": "token", "key_id": "WRONGKEY01", "team_id": PipelineHarness.teamID, "topic": PipelineHarness.topic, "private_key": otherKey,
            ])
            #expect(wrong.status == 200)
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "paused"]])
            let broken = try await poll(timeout: .seconds(30), "the credential to be marked broken") {
                let metadata = try await relay.request("GET", "/admin/v1/apps/\(app.key)/apns")
                return metadata.json["broken_at"] is String ? metadata.json : nil
            }
            #expect(broken["broken_reason"] as? String == "InvalidProviderToken")
            try await Task.sleep(for: .milliseconds(300))
            let paused = try await relay.message(msgID)
            #expect(paused["state"] == "sending")
            #expect(try paused.int("sent_count") == 0)
            #expect(relay.simulator.stats.accepted == 0)

            let fixed = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/apns", json: [
                "auth": "token", "key_id": PipelineHarness.keyID, "team_id": PipelineHarness.teamID, "topic": PipelineHarness.topic,
                "private_key": relay.keyPEM,
            ])
            #expect(fixed.json["broken_at"] is NSNull)
            let message = try await relay.waitUntilFinished(msgID, timeout: .seconds(30))
            #expect(try message.int("sent_count") == 30)
            #expect(Set(relay.simulator.deliveries().map(\.token)) == Set(tokens))
        }
    }
}

extension URL {
    /// Creates the directory and returns it.
    func creatingDirectory() throws -> URL {
        try FileManager.default.createDirectory(at: self, withIntermediateDirectories: true)
        return self
    }
}
