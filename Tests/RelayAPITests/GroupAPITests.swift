import Foundation
import PostgresStore
@testable import RelayStore
import Testing
@testable import RelayAPI

/// Groups of apps: their admin routes (list, delete, secret rotation, a group's pushes) and
/// JPush's group report calls, each group seeing only its own pushes.
@Suite struct GroupAPITests {
    struct Group {
        var key: String
        var secret: String
        var auth: RelayHarness.Auth { .basic("group-\(key)", secret) }
    }

    static func makeGroup(_ relay: RelayHarness, _ name: String, apps: [String]) async throws -> Group {
        let reply = try await relay.request("POST", "/admin/v1/groups", json: ["name": name, "app_keys": apps])
        guard reply.status == 201, let key = reply.json["group_key"] as? String, let secret = reply.json["group_secret"] as? String else {
            throw HarnessError("group creation failed: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return Group(key: key, secret: secret)
    }

    static var push: [String: Any] { ["platform": "ios", "audience": "all", "notification": ["alert": "to the group"],
                                      "options": ["apns_production": true]] }

    static func array(_ reply: RelayHarness.Reply) -> [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: reply.body)) as? [[String: Any]] ?? []
    }

    @Test func adminGroupRoutesNeedTheAdminToken() async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp("member")
            let group = try await Self.makeGroup(relay, "g", apps: [app.key])
            for (method, path) in [("GET", "/admin/v1/groups"), ("DELETE", "/admin/v1/groups/\(group.key)"),
                                   ("POST", "/admin/v1/groups/\(group.key)/secret"), ("GET", "/admin/v1/groups/\(group.key)/messages")] {
                for auth in [RelayHarness.Auth.none, .bearer("wrong"), group.auth, .basic(app.key, app.secret)] {
                    let reply = try await relay.request(method, path, auth: auth)
                    #expect(reply.status == 401, "\(method) \(path) answered \(reply.status)")
                }
            }
            #expect(try await relay.request("POST", "/v3/grouppush", auth: group.auth, json: Self.push).status != 401,
                    "the group was neither deleted nor rotated by the refused calls")
        }
    }

    @Test func groupsAreListedWithoutTheirSecrets() async throws {
        try await RelayHarness.with { relay in
            let first = try await relay.createApp("first"), second = try await relay.createApp("second")
            let both = try await Self.makeGroup(relay, "both", apps: [second.key, first.key])
            let one = try await Self.makeGroup(relay, "one", apps: [first.key])
            let reply = try await relay.request("GET", "/admin/v1/groups")
            #expect(reply.status == 200)
            let groups = try #require(reply.json["groups"] as? [[String: Any]])
            #expect(groups.map { $0["group_key"] as? String } == [both.key, one.key])
            #expect(groups.first?["app_keys"] as? [String] == [first.key, second.key].sorted())
            #expect(groups.first?["name"] as? String == "both" && groups.first?["created_at"] is String)
            let text = String(decoding: reply.body, as: UTF8.self)
            #expect(!text.contains(both.secret) && !text.contains(one.secret) && !text.contains("secret_hash") && !text.contains("$"),
                    "no secret nor hash is listed: \(text)")
        }
    }

    /// Rotation: the old secret is refused at once, the new one accepted, and the rotation
    /// time moves; an unknown group is a 404.
    @Test func rotatingAGroupSecretRefusesTheOldOne() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay, name: "member")
            _ = try await app.register()
            let group = try await Self.makeGroup(relay, "rotating", apps: [app.key])
            #expect(try await relay.request("POST", "/v3/grouppush", auth: group.auth, json: Self.push).status == 200)
            let before = try #require(try await relay.request("GET", "/admin/v1/groups").json["groups"] as? [[String: Any]]).first

            let rotated = try await relay.request("POST", "/admin/v1/groups/\(group.key)/secret")
            #expect(rotated.status == 200)
            let newSecret = try #require(rotated.json["group_secret"] as? String)
            #expect(newSecret != group.secret && newSecret.count == 24)
            #expect(rotated.json["group_key"] as? String == group.key && rotated.json["app_keys"] as? [String] == [app.key])
            #expect(rotated.json["secret_rotated_at"] as? String != nil)
            #expect((rotated.json["secret_rotated_at"] as? String ?? "") >= (before?["secret_rotated_at"] as? String ?? "~"))

            let old = try await relay.request("POST", "/v3/grouppush", auth: group.auth, json: Self.push)
            #expect(old.status == 401 && old.errorCode == 1004, "the old secret: \(old.status)")
            let oldReport = try await relay.request("GET", "/v3/group/messages/detail?group_msgids=1", auth: group.auth)
            #expect(oldReport.status == 401 && oldReport.errorCode == 3001)
            let renewed = Group(key: group.key, secret: newSecret)
            #expect(try await relay.request("POST", "/v3/grouppush", auth: renewed.auth, json: Self.push).status == 200)

            let unknown = try await relay.request("POST", "/admin/v1/groups/\(String(repeating: "0", count: 24))/secret")
            #expect(unknown.status == 404 && unknown.errorCode == 1008)
        }
    }

    /// Deleting a group ends its credentials and its push records; its apps and their
    /// messages stay.
    @Test func deletingAGroupEndsItsCredentials() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay, name: "member")
            _ = try await app.register()
            let group = try await Self.makeGroup(relay, "doomed", apps: [app.key])
            let pushed = try await relay.request("POST", "/v3/grouppush", auth: group.auth, json: Self.push)
            let msgID = try #require((pushed.json[app.key] as? [String: Any])?["msg_id"] as? String)

            let deleted = try await relay.request("DELETE", "/admin/v1/groups/\(group.key)")
            #expect(deleted.status == 200 && deleted.json["deleted"] as? Bool == true)
            #expect(try await relay.request("POST", "/v3/grouppush", auth: group.auth, json: Self.push).status == 401)
            #expect((try await relay.request("GET", "/admin/v1/groups").json["groups"] as? [[String: Any]])?.isEmpty == true)
            let again = try await relay.request("DELETE", "/admin/v1/groups/\(group.key)")
            #expect(again.status == 404 && again.errorCode == 1008)
            let messages = try await relay.request("GET", "/admin/v1/groups/\(group.key)/messages")
            #expect(messages.status == 404)
            #expect(try await relay.pool.query("SELECT count(*) AS n FROM group_pushes").first?.int("n") == 0)
            #expect(try await relay.pool.query("SELECT count(*) AS n FROM group_push_messages").first?.int("n") == 0)
            let detail = try await app.request("GET", "/v3/messages/detail?msg_ids=\(msgID)")
            #expect(Self.array(detail).first?["msg_id"] as? String == msgID, "the app keeps its message")
        }
    }

    /// A group push is stored with each app's msg_id (or error) and looked up by its
    /// group_msgid: through JPush's group report call and the admin listing.
    @Test func aGroupPushIsLookedUpByItsGroupMsgid() async throws {
        try await RelayHarness.with { relay in
            let withDevices = try await DeviceClient.make(relay, name: "with devices")
            let empty = try await DeviceClient.make(relay, name: "empty")
            _ = try await withDevices.register()
            _ = try await withDevices.register()
            let group = try await Self.makeGroup(relay, "family", apps: [withDevices.key, empty.key])
            let targeted: [String: Any] = ["platform": "ios", "audience": ["registration_id": [try await withDevices.register()]],
                                           "notification": ["alert": "one"], "options": ["apns_production": true]]
            let reply = try await relay.request("POST", "/v3/grouppush", auth: group.auth, json: targeted)
            #expect(reply.status == 200)
            let groupMsgID = try #require(reply.json["group_msgid"] as? String)
            let msgID = try #require((reply.json[withDevices.key] as? [String: Any])?["msg_id"] as? String)
            #expect(((reply.json[empty.key] as? [String: Any])?["error"] as? [String: Any])?["code"] as? Int == 1011)

            let detail = try await relay.request("GET", "/v3/group/messages/detail?group_msgids=\(groupMsgID)", auth: group.auth)
            #expect(detail.status == 200)
            let item = try #require(Self.array(detail).first)
            #expect(item["group_msgid"] as? String == groupMsgID)
            let ios = try #require(item["ios"] as? [String: Any])
            #expect(ios["apns_target"] as? Int == 1 && ios["apns_sent"] as? Int == 0 && ios["apns_received"] as? Int == 0)
            let android = try #require(item["android_pns"] as? [String: Any])
            #expect(android["pns_target"] as? Int == 0 && android["pns_sent"] as? Int == 0 && android["pns_received"] as? Int == 0)
            #expect(item["jpush"] is NSNull)
            let apps = try #require(item["apps"] as? [[String: Any]])
            let sorted = [withDevices.key, empty.key].sorted()
            #expect(apps.map { $0["app_key"] as? String } == sorted)
            let sent = try #require(apps.first { $0["app_key"] as? String == withDevices.key })
            #expect(sent["msg_id"] as? String == msgID && sent["target"] as? Int == 1 && sent["state"] as? String != nil)
            let refused = try #require(apps.first { $0["app_key"] as? String == empty.key })
            #expect((refused["error"] as? [String: Any])?["code"] as? Int == 1011 && refused["msg_id"] == nil)

            let listed = try await relay.request("GET", "/admin/v1/groups/\(group.key)/messages")
            #expect(listed.status == 200 && listed.json["next_cursor"] is NSNull)
            let pushes = try #require(listed.json["messages"] as? [[String: Any]])
            #expect(pushes.count == 1 && pushes.first?["group_msgid"] as? String == groupMsgID && pushes.first?["target"] as? Int == 1)
            #expect((pushes.first?["apps"] as? [[String: Any]])?.compactMap { $0["msg_id"] as? String } == [msgID])
        }
    }

    /// Deleting an app of a group removes its part of the group's push records (and the app
    /// from the group); the other apps' parts stay.
    @Test func deletingAnAppRemovesItsPartOfGroupPushes() async throws {
        try await RelayHarness.with { relay in
            let staying = try await DeviceClient.make(relay, name: "staying"), leaving = try await DeviceClient.make(relay, name: "leaving")
            _ = try await staying.register()
            _ = try await leaving.register()
            let group = try await Self.makeGroup(relay, "pair", apps: [staying.key, leaving.key])
            let pushed = try await relay.request("POST", "/v3/grouppush", auth: group.auth, json: Self.push)
            let groupMsgID = try #require(pushed.json["group_msgid"] as? String)
            #expect(try await relay.request("DELETE", "/admin/v1/apps/\(leaving.key)").status == 200)

            let detail = try await relay.request("GET", "/v3/group/messages/detail?group_msgids=\(groupMsgID)", auth: group.auth)
            let apps = (Self.array(detail).first?["apps"] as? [[String: Any]])?.compactMap { $0["app_key"] as? String }
            #expect(apps == [staying.key], "\(String(decoding: detail.body, as: UTF8.self))")
            #expect(try await relay.pool.query("SELECT count(*) AS n FROM group_push_messages").first?.int("n") == 1,
                    "the deleted app's row is gone, not only hidden by the join")
            let listed = try #require(try await relay.request("GET", "/admin/v1/groups").json["groups"] as? [[String: Any]]).first
            #expect(listed?["app_keys"] as? [String] == [staying.key])
        }
    }

    /// A group sees only its own pushes; app credentials open no group report, and bad
    /// group_msgids are the report family's errors.
    @Test func groupReportsAreScopedToTheirGroup() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay, name: "shared")
            _ = try await app.register()
            let mine = try await Self.makeGroup(relay, "mine", apps: [app.key])
            let theirs = try await Self.makeGroup(relay, "theirs", apps: [app.key])
            let pushed = try await relay.request("POST", "/v3/grouppush", auth: mine.auth, json: Self.push)
            let groupMsgID = try #require(pushed.json["group_msgid"] as? String)

            let own = try await relay.request("GET", "/v3/group/messages/detail?group_msgids=\(groupMsgID),\(groupMsgID)", auth: mine.auth)
            #expect(Self.array(own).count == 1)
            let other = try await relay.request("GET", "/v3/group/messages/detail?group_msgids=\(groupMsgID)", auth: theirs.auth)
            #expect(other.status == 200 && Self.array(other).isEmpty, "\(String(decoding: other.body, as: UTF8.self))")
            #expect((try await relay.request("GET", "/admin/v1/groups/\(theirs.key)/messages").json["messages"] as? [[String: Any]])?.isEmpty == true)
            let byApp = try await app.request("GET", "/v3/group/messages/detail?group_msgids=\(groupMsgID)")
            #expect(byApp.status == 401 && byApp.errorCode == 3001)

            let malformed = try await relay.request("GET", "/v3/group/messages/detail?group_msgids=abc", auth: mine.auth)
            #expect(malformed.status == 400 && malformed.errorCode == 3002)
            let missing = try await relay.request("GET", "/v3/group/messages/detail", auth: mine.auth)
            #expect(missing.status == 400 && missing.errorCode == 3002)
            let eleven = (1...11).map(String.init).joined(separator: ",")
            let tooMany = try await relay.request("GET", "/v3/group/messages/detail?group_msgids=\(eleven)", auth: mine.auth)
            #expect(tooMany.status == 400 && tooMany.errorCode == 3005)
        }
    }

    /// The admin listing pages newest first by keyset; bad paging values are 400s.
    @Test func aGroupsPushesArePaged() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay, name: "member")
            _ = try await app.register()
            let group = try await Self.makeGroup(relay, "paged", apps: [app.key])
            var ids: [String] = []
            for _ in 0..<3 {
                let pushed = try await relay.request("POST", "/v3/grouppush", auth: group.auth, json: Self.push)
                ids.append(try #require(pushed.json["group_msgid"] as? String))
            }
            let first = try await relay.request("GET", "/admin/v1/groups/\(group.key)/messages?limit=2")
            let firstIDs = (first.json["messages"] as? [[String: Any]])?.compactMap { $0["group_msgid"] as? String }
            #expect(firstIDs == [ids[2], ids[1]])
            let cursor = try #require(first.json["next_cursor"] as? String)
            let second = try await relay.request("GET", "/admin/v1/groups/\(group.key)/messages?limit=2&cursor=\(cursor)")
            #expect((second.json["messages"] as? [[String: Any]])?.compactMap { $0["group_msgid"] as? String } == [ids[0]])
            #expect(second.json["next_cursor"] is NSNull)
            for bad in ["limit=0", "limit=101", "limit=x", "cursor=-1", "cursor=abc"] {
                let reply = try await relay.request("GET", "/admin/v1/groups/\(group.key)/messages?\(bad)")
                #expect(reply.status == 400 && reply.errorCode == 1003, "\(bad): \(reply.status)")
            }
        }
    }

    /// `GET /v3/group/users` is `/v3/users` summed over the group's apps.
    @Test func groupUsersSumTheGroupsApps() async throws {
        try await RelayHarness.with { relay in
            let first = try await DeviceClient.make(relay, name: "first"), second = try await DeviceClient.make(relay, name: "second")
            let outside = try await DeviceClient.make(relay, name: "outside")
            _ = try await first.register()
            _ = try await second.register()
            _ = try await second.register()
            _ = try await outside.register()
            let group = try await Self.makeGroup(relay, "users", apps: [first.key, second.key])
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd"
            let today = formatter.string(from: Date())
            let reply = try await relay.request("GET", "/v3/group/users?time_unit=DAY&start=\(today)&duration=1", auth: group.auth)
            #expect(reply.status == 200)
            let items = try #require(reply.json["items"] as? [[String: Any]])
            let ios = try #require(items.first?["ios"] as? [String: Any])
            #expect(items.count == 1 && ios["new"] as? Int == 3 && ios["active"] as? Int == 3 && ios["online"] is NSNull)
            #expect(reply.json["time_unit"] as? String == "DAY" && reply.json["start"] as? String == today)
            let bad = try await relay.request("GET", "/v3/group/users?time_unit=WEEK&start=\(today)&duration=1", auth: group.auth)
            #expect(bad.status == 400 && bad.errorCode == 3002)
        }
    }

    /// Every statement of the group routes that reads is served by the index meant for it
    /// (with sequential scans off, a missing index shows up as one, or as another index).
    @Test func groupStatementsUseIndexes() async throws {
        try await RelayHarness.with { relay in
            let key = "0123456789abcdef01234567"
            let statements: [(name: String, sql: String, parameters: [String], index: String?)] = [
                ("list", GroupStatements.list.text, [], "app_group_members_pkey"),
                ("delete", GroupStatements.delete.text, [key], "app_groups_group_key_key"),
                ("replace secret", GroupStatements.replaceSecretHash.text, [key, "hash"], "app_groups_group_key_key"),
                ("find", GroupStatements.find.text, [key], "app_groups_group_key_key"),
                ("insert push", GroupPushStatements.insertPush.text, ["1", "1"], nil),
                ("insert message", GroupPushStatements.insertMessage.text, ["1", "1", "2", "", ""], nil),
                ("page", GroupPushStatements.page.text, ["1", "9000000000000", "21"], "group_pushes_by_group"),
                ("parts", GroupPushStatements.parts.text, ["1", "{1,2,3}"], "group_push_messages_pkey"),
            ]
            for statement in statements {
                let plan = try await relay.pool.withConnection { connection in
                    try connection.transaction { connection in
                        try connection.query("SET LOCAL enable_seqscan = off")
                        let parameters = statement.parameters.map { $0.isEmpty ? nil : $0 as (any PostgresBindable)? }
                        return try connection.query("EXPLAIN " + statement.sql, parameters).map { try $0.string("QUERY PLAN") }
                            .joined(separator: "\n")
                    }
                }
                #expect(!plan.contains("Seq Scan"), "\(statement.name) scans a table:\n\(plan)")
                if let index = statement.index {
                    #expect(plan.contains(index), "\(statement.name) does not use \(index):\n\(plan)")
                }
            }
        }
    }
}
