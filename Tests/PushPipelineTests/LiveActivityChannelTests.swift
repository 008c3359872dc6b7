import APNSClient
import Foundation
import RelayCore
import Testing
import TestSupport

/// `/v3/live-activities/channels` against the APNs simulator: channels made and deleted at
/// APNs' channel management, mirrored per app, and the 4xx for what is wrong.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct LiveActivityChannelTests {
    typealias Harness = PipelineHarness

    /// The id as a path segment: base64url without padding (a `/` cannot stand in one).
    static func pathID(_ channelID: String) -> String {
        String(channelID.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 }.filter { $0 != "=" })
    }

    static func create(_ relay: Harness, _ app: Harness.App, policy: Int = 0) async throws -> String {
        let reply = try await relay.request("POST", "/v3/live-activities/channels", auth: app.auth, json: ["message_storage_policy": policy])
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(reply.json["channel_id"] as? String)
    }

    @Test func aChannelIsCreatedAtAPNsListedAndDeleted() async throws {
        try await Harness.with { relay in
            let app = try await relay.createApp()
            let reply = try await relay.request("POST", "/v3/live-activities/channels", auth: app.auth,
                                                json: ["message_storage_policy": 1, "environment": "production"])
            #expect(reply.status == 200, "\(reply.text)")
            let channelID = try #require(reply.json["channel_id"] as? String)
            #expect(reply.json["environment"] as? String == "production")
            #expect(reply.json["message_storage_policy"] as? Int == 1)
            #expect(reply.json["created_at"] is String)
            #expect(relay.simulator.channels.list(bundleID: Harness.topic) == [channelID], "created at APNs with the app's bundle id")
            #expect(relay.simulator.channels.policy(bundleID: Harness.topic, channelID: channelID) == .mostRecentMessageStored)

            let listed = try await relay.request("GET", "/v3/live-activities/channels", auth: app.auth)
            #expect(listed.status == 200)
            let channels = try #require(listed.json["channels"] as? [[String: Any]])
            #expect(channels.map { $0["channel_id"] as? String } == [channelID])
            let one = try await relay.request("GET", "/v3/live-activities/channels/\(Self.pathID(channelID))", auth: app.auth)
            #expect(one.status == 200)
            #expect(one.json["channel_id"] as? String == channelID)

            let sent = try await relay.request("POST", "/v3/live-activities/channels/\(Self.pathID(channelID))", auth: app.auth,
                                               json: ["event": "update", "content_state": ["score": "2-1"], "alert": ["title": "Goal"]])
            #expect(sent.status == 200, "\(sent.text)")
            #expect(sent.json["channel_id"] as? String == channelID)
            #expect(sent.json["apns_request_id"] is String)
            let delivery = try #require(relay.simulator.deliveries(token: channelID).first, "the broadcast reached the channel")
            #expect(delivery.pushType == "liveactivity")
            #expect(delivery.priority == "5", "updates default to 5")
            #expect(delivery.topic == nil, "a broadcast carries no apns-topic")
            let aps = try #require((try JSONSerialization.jsonObject(with: Data(delivery.payload)) as? [String: Any])?["aps"] as? [String: Any])
            #expect(aps["event"] as? String == "update")
            #expect(aps["content-state"] as? [String: String] == ["score": "2-1"])
            #expect(aps["timestamp"] is Int)
            #expect((aps["alert"] as? [String: Any])?["title"] as? String == "Goal")

            let deleted = try await relay.request("DELETE", "/v3/live-activities/channels/\(Self.pathID(channelID))", auth: app.auth)
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(deleted.json["deleted"] as? Bool == true)
            #expect(relay.simulator.channels.list(bundleID: Harness.topic) == [], "deleted at APNs")
            let after = try await relay.request("GET", "/v3/live-activities/channels", auth: app.auth)
            #expect((after.json["channels"] as? [Any])?.isEmpty == true)
            let late = try await relay.request("POST", "/v3/live-activities/channels/\(Self.pathID(channelID))", auth: app.auth,
                                               json: ["event": "end", "content_state": ["score": "2-1"]])
            #expect(late.status == 404, "a deleted channel takes no send")
            let again = try await relay.request("DELETE", "/v3/live-activities/channels/\(Self.pathID(channelID))", auth: app.auth)
            #expect(again.status == 404)
            #expect(again.errorCode == 1008)
        }
    }

    @Test func anotherAppsChannelIsNotFound() async throws {
        try await Harness.with { relay in
            let owner = try await relay.createApp("owner")
            let other = try await relay.createApp("other")
            let channelID = try await Self.create(relay, owner)
            let send = try await relay.request("POST", "/v3/live-activities/channels/\(Self.pathID(channelID))", auth: other.auth,
                                               json: ["event": "update", "content_state": ["x": 1]])
            #expect(send.status == 404)
            #expect(send.errorCode == 1008)
            #expect(relay.simulator.deliveries(token: channelID).isEmpty, "nothing was broadcast")
            for method in ["GET", "DELETE"] {
                let reply = try await relay.request(method, "/v3/live-activities/channels/\(Self.pathID(channelID))", auth: other.auth)
                #expect(reply.status == 404, "\(method)")
                #expect(reply.errorCode == 1008)
            }
            let listed = try await relay.request("GET", "/v3/live-activities/channels", auth: other.auth)
            #expect((listed.json["channels"] as? [Any])?.isEmpty == true)
            #expect(relay.simulator.channels.list(bundleID: Harness.topic) == [channelID], "the owner's channel is untouched")
        }
    }

    @Test func badInputIsA4xxInJPushsShape() async throws {
        try await Harness.with { relay in
            let app = try await relay.createApp()
            for (body, code) in [([String: Any](), 1002), (["message_storage_policy": 2], 1003), (["message_storage_policy": "0"], 1003),
                                 (["message_storage_policy": 0, "environment": "development"], 1003),
                                 (["message_storage_policy": 0, "push_type": "LiveActivity"], 1009)] {
                let reply = try await relay.request("POST", "/v3/live-activities/channels", auth: app.auth, json: body)
                #expect(reply.status == 400, "\(body): \(reply.text)")
                #expect(reply.errorCode == code, "\(body): \(reply.text)")
            }
            let notJSON = try await relay.request("POST", "/v3/live-activities/channels", auth: app.auth, body: Data("{".utf8))
            #expect(notJSON.status == 400)
            let badID = try await relay.request("DELETE", "/v3/live-activities/channels/not!base64", auth: app.auth)
            #expect(badID.status == 400)
            #expect(badID.errorCode == 1003)
            let unauthenticated = try await relay.request("GET", "/v3/live-activities/channels", auth: .basic(app.key, "wrong"))
            #expect(unauthenticated.status == 401)
            #expect(relay.simulator.channels.list(bundleID: Harness.topic) == [], "nothing reached APNs")
        }
    }

    @Test func sendsTakeAnUpdateOrEndWithItsOptions() async throws {
        try await Harness.with { relay in
            let app = try await relay.createApp()
            let stored = try await Self.create(relay, app, policy: 1)
            let path = "/v3/live-activities/channels/\(Self.pathID(stored))"
            let urgent = try await relay.request("POST", path, auth: app.auth, json: [
                "event": "end", "content_state": ["score": "3-1"], "dismissal_date": 1_900_000_000,
                "options": ["apns_priority": 10, "time_to_live": 600]])
            #expect(urgent.status == 200, "a storing channel takes an expiration: \(urgent.text)")
            let delivery = try #require(relay.simulator.deliveries(token: stored).first)
            #expect(delivery.priority == "10")
            let aps = try #require((try JSONSerialization.jsonObject(with: Data(delivery.payload)) as? [String: Any])?["aps"] as? [String: Any])
            #expect(aps["event"] as? String == "end")
            #expect(aps["dismissal-date"] as? Int == 1_900_000_000)

            let none = try await Self.create(relay, app, policy: 0)
            let ttl = try await relay.request("POST", "/v3/live-activities/channels/\(Self.pathID(none))", auth: app.auth,
                                              json: ["event": "update", "content_state": ["a": 1], "options": ["time_to_live": 600]])
            #expect(ttl.status == 200, "a channel that stores nothing is sent expiration 0 whatever time_to_live says: \(ttl.text)")

            for (body, code) in [(["event": "start", "content_state": ["a": 1]] as [String: Any], 1003),
                                 (["event": "update"], 1002), (["event": "pause", "content_state": ["a": 1]], 1003),
                                 (["event": "update", "content_state": ["a": 1], "cid": "x"], 1003),
                                 (["event": "update", "content_state": ["a": 1], "activity_id": "match-1"], 1003),
                                 (["event": "update", "content_state": ["a": 1], "options": ["apns_priority": 1]], 1003),
                                 (["event": "update", "content_state": ["a": String(repeating: "x", count: 6000)]], 1005)] {
                let reply = try await relay.request("POST", path, auth: app.auth, json: body)
                #expect(reply.status == 400, "\(body): \(reply.text)")
                #expect(reply.errorCode == code, "\(body): \(reply.text)")
            }
            let unknown = try await relay.request("POST", "/v3/live-activities/channels/AAAAAAAAAAAAAAAAAAAAAA", auth: app.auth,
                                                  json: ["event": "update", "content_state": ["a": 1]])
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == 1008)
            #expect(relay.simulator.deliveries(token: none).first?.count == 1, "only the good sends went out")
            #expect(relay.simulator.deliveries(token: stored).first?.count == 1)
        }
    }

    @Test func aChannelAPNsNoLongerKnowsIsNotFoundAndDeletesCleanly() async throws {
        try await Harness.with { relay in
            let app = try await relay.createApp()
            let channelID = try await Self.create(relay, app)
            let path = "/v3/live-activities/channels/\(Self.pathID(channelID))"
            #expect(relay.simulator.channels.delete(bundleID: Harness.topic, channelID: channelID), "deleted at APNs by other means")
            let send = try await relay.request("POST", path, auth: app.auth, json: ["event": "update", "content_state": ["a": 1]])
            #expect(send.status == 404, "APNs: ChannelNotRegistered")
            #expect(send.errorCode == 1008)
            let deleted = try await relay.request("DELETE", path, auth: app.auth)
            #expect(deleted.status == 200, "a channel APNs does not know counts as deleted: \(deleted.text)")
            let listed = try await relay.request("GET", "/v3/live-activities/channels", auth: app.auth)
            #expect((listed.json["channels"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func anAppWithoutATokenKeyIsToldSo() async throws {
        try await Harness.with { relay in
            let created = try await relay.request("POST", "/admin/v1/apps", json: ["name": "cert app"])
            let key = try #require(created.json["app_key"] as? String)
            let secret = try #require(created.json["master_secret"] as? String)
            let none = try await relay.request("POST", "/v3/live-activities/channels", auth: .basic(key, secret),
                                               json: ["message_storage_policy": 0])
            #expect(none.status == 400)
            #expect(none.text.contains("token (.p8)"), "\(none.text)")

            let certificateKey = relay.directory.appendingPathComponent("cert-key.pem").path
            let certificate = relay.directory.appendingPathComponent("cert.pem").path
            try await TestProcess.run("/usr/bin/openssl", [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", certificateKey,
                "-out", certificate, "-days", "30", "-subj", "/UID=com.example.cert/CN=Apple Push Services: com.example.cert"])
            let upload = try await relay.request("PUT", "/admin/v1/apps/\(key)/apns", json: [
                "auth": "certificate", "topic": "com.example.cert",
                "certificate": try String(contentsOfFile: certificate, encoding: .utf8),
                "private_key": try String(contentsOfFile: certificateKey, encoding: .utf8)])
            #expect(upload.status == 200, "\(upload.text)")
            let refused = try await relay.request("POST", "/v3/live-activities/channels", auth: .basic(key, secret),
                                                  json: ["message_storage_policy": 0])
            #expect(refused.status == 400)
            #expect(refused.errorCode == 1003)
            #expect(refused.text.contains("certificate"), "\(refused.text)")
            #expect(relay.simulator.channels.list(bundleID: "com.example.cert") == [])
        }
    }
}
