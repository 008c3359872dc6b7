import Foundation
import Testing
@testable import RelayAPI

/// Every `/v3` route of the router's table, called with app B's credentials on app A's
/// resource ids: a 4xx (or, where the route acts in B's own namespace, B's own empty data),
/// never a byte of A's data, and A's data unchanged afterwards. A route added without a probe
/// here fails the test, so new routes are covered as they come.
@Suite struct TenantIsolationMatrixTests {
    /// What B may be answered.
    enum Expect {
        /// A 4xx: the id is A's, so for B it does not exist.
        case refused
        /// The route names things in B's own namespace (tag and alias names, lists, new
        /// resources): success is allowed, A's data is not.
        case ownNamespace
    }

    struct Probe {
        var path: String
        var body: Any?
        var expect: Expect
    }

    struct AData {
        var rid: String, token: String, alias: String, tag: String, msgID: String, scheduleID: String
        var scheduleName: String, alert: String, appKey: String
        /// A's Live Activity, with the device's update token, and a channel id of no app (the
        /// API harness has no APNs: LiveActivityChannelTests probes another app's real channel).
        var activityID: String, channelID: String
    }

    static func probes(_ a: AData) -> [String: Probe] {
        let push: [String: Any] = ["platform": "ios", "audience": ["alias": [a.alias]], "notification": ["alert": "from B"]]
        let future = Date().addingTimeInterval(3600)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let schedule: [String: Any] = ["name": "b schedule", "enabled": true,
                                       "trigger": ["single": ["time": formatter.string(from: future)]], "push": push]
        return [
            "POST /v3/devices": Probe(path: "/v3/devices", body: ["platform": "ios", "token": a.token, "environment": "production", "alias": a.alias, "tags": [a.tag]], expect: .ownNamespace),
            "POST /v3/devices/import": Probe(path: "/v3/devices/import", body: ["devices": [["token": a.token, "alias": a.alias]]], expect: .ownNamespace),
            "POST /v3/devices/status": Probe(path: "/v3/devices/status", body: ["registration_ids": [a.rid]], expect: .refused),
            "GET /v3/devices/{registration_id}": Probe(path: "/v3/devices/\(a.rid)", expect: .refused),
            "POST /v3/devices/{registration_id}": Probe(path: "/v3/devices/\(a.rid)", body: ["alias": "mallory", "tags": ["add": ["evil"]]], expect: .refused),
            "GET /v3/tags": Probe(path: "/v3/tags", expect: .ownNamespace),
            "POST /v3/tags/{tag}": Probe(path: "/v3/tags/\(a.tag)", body: ["registration_ids": ["remove": [a.rid]]], expect: .refused),
            "DELETE /v3/tags/{tag}": Probe(path: "/v3/tags/\(a.tag)", expect: .ownNamespace),
            "GET /v3/tags/{tag}/registration_ids/{registration_id}": Probe(path: "/v3/tags/\(a.tag)/registration_ids/\(a.rid)", expect: .refused),
            "GET /v3/aliases/{alias}": Probe(path: "/v3/aliases/\(a.alias)", expect: .ownNamespace),
            "POST /v3/aliases/{alias}": Probe(path: "/v3/aliases/\(a.alias)", body: ["registration_ids": ["remove": [a.rid]]], expect: .refused),
            "DELETE /v3/aliases/{alias}": Probe(path: "/v3/aliases/\(a.alias)", expect: .ownNamespace),
            "GET /v3/push/cid": Probe(path: "/v3/push/cid", expect: .ownNamespace),
            "POST /v3/push": Probe(path: "/v3/push", body: push, expect: .refused),
            "POST /v3/push/validate": Probe(path: "/v3/push/validate", body: push, expect: .ownNamespace),
            "DELETE /v3/push/{msg_id}": Probe(path: "/v3/push/\(a.msgID)", expect: .refused),
            "POST /v3/push/batch/regid/single": Probe(path: "/v3/push/batch/regid/single",
                body: ["pushlist": ["c1": ["platform": "ios", "target": a.rid, "notification": ["alert": "x"]]]], expect: .ownNamespace),
            "POST /v3/push/batch/alias/single": Probe(path: "/v3/push/batch/alias/single",
                body: ["pushlist": ["c1": ["platform": "ios", "target": a.alias, "notification": ["alert": "x"]]]], expect: .ownNamespace),
            "GET /v3/received": Probe(path: "/v3/received?msg_ids=\(a.msgID)", expect: .ownNamespace),
            "GET /v3/received/detail": Probe(path: "/v3/received/detail?msg_ids=\(a.msgID)", expect: .ownNamespace),
            "GET /v3/messages/detail": Probe(path: "/v3/messages/detail?msg_ids=\(a.msgID)", expect: .ownNamespace),
            "POST /v3/status/message": Probe(path: "/v3/status/message", body: ["msg_id": Int(a.msgID)!, "registration_ids": [a.rid]], expect: .refused),
            "GET /v3/users": Probe(path: "/v3/users?time_unit=DAY&start=2026-01-01&duration=3", expect: .ownNamespace),
            "POST /v3/schedules": Probe(path: "/v3/schedules", body: schedule, expect: .ownNamespace),
            "GET /v3/schedules": Probe(path: "/v3/schedules", expect: .ownNamespace),
            "GET /v3/schedules/{id}": Probe(path: "/v3/schedules/\(a.scheduleID)", expect: .refused),
            "PUT /v3/schedules/{id}": Probe(path: "/v3/schedules/\(a.scheduleID)", body: ["enabled": false], expect: .refused),
            "DELETE /v3/schedules/{id}": Probe(path: "/v3/schedules/\(a.scheduleID)", expect: .refused),
            "GET /v3/schedules/{id}/msg_ids": Probe(path: "/v3/schedules/\(a.scheduleID)/msg_ids", expect: .refused),
            // Group keys: B's app key and secret are no group credentials.
            "POST /v3/grouppush": Probe(path: "/v3/grouppush", body: push, expect: .refused),
            "GET /v3/group/messages/detail": Probe(path: "/v3/group/messages/detail?group_msgids=\(a.msgID)", expect: .refused),
            "GET /v3/group/users": Probe(path: "/v3/group/users?time_unit=DAY&start=2026-01-01&duration=3", expect: .refused),
            // Live Activities: A's device and activity are no device or activity of B.
            "POST /v3/live-activities/start-tokens": Probe(path: "/v3/live-activities/start-tokens",
                body: ["registration_id": a.rid, "attributes_type": "BAttributes", "token": DeviceClient.randomToken()], expect: .refused),
            "POST /v3/live-activities/{activity_id}/tokens": Probe(path: "/v3/live-activities/\(a.activityID)/tokens",
                body: ["registration_id": a.rid, "token": DeviceClient.randomToken()], expect: .refused),
            "PUT /v3/live-activities/{activity_id}/state": Probe(path: "/v3/live-activities/\(a.activityID)/state",
                body: ["registration_id": a.rid, "state": "ended"], expect: .refused),
            "POST /v3/live-activities": Probe(path: "/v3/live-activities", body: ["event": "start", "activity_id": a.activityID,
                "audience": ["alias": [a.alias]], "attributes_type": "AAttributes", "attributes": [:], "content_state": [:]], expect: .refused),
            "POST /v3/live-activities/{activity_id}": Probe(path: "/v3/live-activities/\(a.activityID)",
                body: ["event": "end", "content_state": [:]], expect: .refused),
            "GET /v3/live-activities/{activity_id}": Probe(path: "/v3/live-activities/\(a.activityID)", expect: .refused),
            "POST /v3/live-activities/channels": Probe(path: "/v3/live-activities/channels", body: ["message_storage_policy": 0], expect: .ownNamespace),
            "GET /v3/live-activities/channels": Probe(path: "/v3/live-activities/channels", expect: .ownNamespace),
            "GET /v3/live-activities/channels/{channel_id}": Probe(path: "/v3/live-activities/channels/\(a.channelID)", expect: .refused),
            "DELETE /v3/live-activities/channels/{channel_id}": Probe(path: "/v3/live-activities/channels/\(a.channelID)", expect: .refused),
            "POST /v3/live-activities/channels/{channel_id}": Probe(path: "/v3/live-activities/channels/\(a.channelID)",
                body: ["event": "update", "content_state": [:]], expect: .refused),
        ]
    }

    @Test func appBReachesNothingOfAppA() async throws {
        try await RelayHarness.with { relay in
            let a = try await DeviceClient.make(relay, name: "A")
            let b = try await DeviceClient.make(relay, name: "B")
            let token = DeviceClient.randomToken()
            let alias = "alias_\(UUID().uuidString.prefix(8))", tag = "tag_\(UUID().uuidString.prefix(8))"
            let rid = try await a.register(token: token, extra: ["alias": alias, "tags": [tag]])
            let alert = "secret-alert-\(UUID().uuidString)"
            let pushed = try await a.request("POST", "/v3/push", json: ["platform": "ios", "audience": ["alias": [alias]], "notification": ["alert": alert]])
            let msgID = try #require(pushed.json["msg_id"] as? String, "A's push: \(pushed.status) \(String(decoding: pushed.body, as: UTF8.self))")
            let scheduleName = "secret-schedule-\(UUID().uuidString.prefix(8))"
            let future = Date().addingTimeInterval(7200)
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
            let created = try await a.request("POST", "/v3/schedules", json: [
                "name": scheduleName, "enabled": true, "trigger": ["single": ["time": formatter.string(from: future)]],
                "push": ["platform": "ios", "audience": ["tag": [tag]], "notification": ["alert": alert]]])
            let scheduleID = try #require(created.json["schedule_id"] as? String, "A's schedule: \(created.status)")
            let activityID = "secret-activity-\(UUID().uuidString.prefix(8))"
            let activityToken = try await a.request("POST", "/v3/live-activities/\(activityID)/tokens",
                                                    json: ["registration_id": rid, "token": DeviceClient.randomToken()])
            #expect(activityToken.status == 200, "A's activity token: \(activityToken.status)")
            let channelID = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let data = AData(rid: rid, token: token, alias: alias, tag: tag, msgID: msgID, scheduleID: scheduleID,
                             scheduleName: scheduleName, alert: alert, appKey: a.key, activityID: activityID, channelID: channelID)
            let before = try await snapshot(a, data)

            let probes = Self.probes(data)
            var sent = ""
            let v3Routes = relay.router.table.filter { $0.pattern.hasPrefix("/v3/") }
            #expect(v3Routes.count >= 25)
            for route in v3Routes {
                let name = "\(route.method) \(route.pattern)"
                guard let probe = probes[name] else {
                    Issue.record("no isolation probe for \(name): add one")
                    continue
                }
                let reply = try await b.request(route.method, probe.path, json: probe.body)
                #expect(reply.status < 500, "\(name): \(reply.status)")
                if case .refused = probe.expect {
                    #expect((400..<500).contains(reply.status), "\(name) with B's key on A's ids answered \(reply.status)")
                }
                // Whatever B did not send itself (in this or an earlier probe, which may have
                // made B a tag or alias of the same name) must not come back to it.
                sent += probe.path + (probe.body.map { String(decoding: try! JSONSerialization.data(withJSONObject: $0), as: UTF8.self) } ?? "")
                let body = String(decoding: reply.body, as: UTF8.self)
                for secret in [rid, token, alias, tag, msgID, scheduleID, scheduleName, alert, a.key, activityID] where !sent.contains(secret) {
                    #expect(!body.contains(secret), "\(name) leaked A's \(secret) to B: \(body)")
                }
            }
            #expect(try await snapshot(a, data) == before, "nothing B did changed A's data")
        }
    }

    @Test func groupKeysReachOnlyTheirApps() async throws {
        try await RelayHarness.with { relay in
            let a = try await DeviceClient.make(relay, name: "A")
            let b = try await DeviceClient.make(relay, name: "B")
            _ = try await a.register()
            _ = try await b.register()
            let group = try await relay.request("POST", "/admin/v1/groups", json: ["name": "only A", "app_keys": [a.key]])
            let groupKey = try #require(group.json["group_key"] as? String)
            let groupSecret = try #require(group.json["group_secret"] as? String)
            let push: [String: Any] = ["platform": "ios", "audience": "all", "notification": ["alert": "group"]]
            let sent = try await relay.request("POST", "/v3/grouppush", auth: .basic("group-\(groupKey)", groupSecret), json: push)
            #expect(sent.status == 200)
            #expect((sent.json[a.key] as? [String: Any])?["msg_id"] != nil && sent.json[b.key] == nil, "the group reached exactly its apps: \(sent.json)")
            let messages = try await relay.pool.query(
                "SELECT a.app_key FROM messages m JOIN apps a ON a.id = m.app_id")
            #expect(Set(messages.compactMap { $0["app_key"] }) == [a.key])
            // The group secret opens no app route, and an app's secret opens no group.
            #expect(try await relay.request("GET", "/v3/push/cid", auth: .basic(groupKey, groupSecret)).status == 401)
            #expect(try await relay.request("GET", "/v3/push/cid", auth: .basic("group-\(groupKey)", groupSecret)).status == 401)
            #expect(try await relay.request("POST", "/v3/grouppush", auth: .basic("group-\(b.key)", b.secret), json: push).status == 401)
        }
    }

    /// A's data as A sees it.
    private func snapshot(_ a: DeviceClient, _ data: AData) async throws -> String {
        var parts: [String] = []
        for path in ["/v3/devices/\(data.rid)", "/v3/aliases/\(data.alias)", "/v3/tags", "/v3/schedules/\(data.scheduleID)",
                     "/v3/tags/\(data.tag)/registration_ids/\(data.rid)", "/v3/live-activities/\(data.activityID)"] {
            let reply = try await a.request("GET", path)
            parts.append("\(path) \(reply.status) \(canonical(reply.body))")
        }
        let status = try await a.request("POST", "/v3/status/message", json: ["msg_id": Int(data.msgID)!, "registration_ids": [data.rid]])
        parts.append("status \(status.status)")
        return parts.joined(separator: "\n")
    }

    private func canonical(_ body: Data) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: body),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return String(decoding: body, as: UTF8.self)
        }
        return String(decoding: data, as: UTF8.self)
    }
}
