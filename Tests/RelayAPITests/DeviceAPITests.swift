import Foundation
@testable import RelayStore
import Testing
@testable import RelayAPI

/// The JPush device calls and the registration extension, against a real relay and database.
@Suite struct DeviceAPITests {
    /// Android devices register with an FCM token and no environment, and take part in
    /// tags, aliases (filtered by `platform`), the device calls, the listing and the counts.
    @Test func androidDevicesRegisterBesideIOSOnes() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let fcm = "dJ3k:APA91bH" + String(repeating: "x-_Y", count: 40)
            let reply = try await app.request("POST", "/v3/devices", json: ["platform": "android", "token": fcm, "alias": "ann", "tags": ["vip"]])
            let rid = try #require(reply.json["registration_id"] as? String)
            let again = try await app.request("POST", "/v3/devices", json: ["platform": "android", "token": fcm, "environment": "production"])
            #expect(again.json["registration_id"] as? String == rid, "the environment of an Android device is checked and dropped")
            let iosRID = try await app.register(extra: ["alias": "ann", "tags": ["vip"]])
            let info = try await app.info(rid)
            #expect(info.tags == ["vip"] && info.alias == "ann")

            let device = try #require(try await app.adminDevice(rid))
            #expect(device["platform"] as? String == "android" && device["token"] as? String == fcm && device["environment"] is NSNull)
            let androidOnly = try await relay.request("GET", "/admin/v1/apps/\(app.key)/devices?platform=android")
            #expect((androidOnly.json["devices"] as? [[String: Any]])?.compactMap { $0["registration_id"] as? String } == [rid])

            func alias(_ query: String) async throws -> [String] {
                try await app.request("GET", "/v3/aliases/ann\(query)").json["registration_ids"] as? [String] ?? []
            }
            #expect(try await alias("") == [rid, iosRID])
            #expect(try await alias("?platform=android") == [rid])
            #expect(try await alias("?platform=ios") == [iosRID])
            #expect(try await alias("?platform=hmos") == [])
            #expect(try await app.request("DELETE", "/v3/tags/vip?platform=android").status == 200)
            let androidTags = try await app.info(rid).tags, iosTags = try await app.info(iosRID).tags
            #expect(androidTags == [] && iosTags == ["vip"], "only the Android device lost the tag")
            #expect(try await app.request("DELETE", "/v3/aliases/ann?platform=ios").status == 200)
            #expect(try await alias("") == [rid])

            let counts = try await relay.request("GET", "/admin/v1/apps/\(app.key)").json["devices"] as? [String: Any]
            #expect((counts?["android"] as? [String: Any])?["active"] as? Int == 1)
            #expect((counts?["production"] as? [String: Any])?["active"] as? Int == 1 && counts?["total"] as? Int == 2)

            let users = try await app.request("GET", "/v3/users?time_unit=DAY&start=\(Self.today())&duration=1")
            let item = try #require((users.json["items"] as? [[String: Any]])?.first)
            #expect((item["android"] as? [String: Any])?["new"] as? Int == 1 && (item["ios"] as? [String: Any])?["new"] as? Int == 1)
        }
    }

    private static func today() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date())
    }

    @Test func registrationIsIdempotentAndNormalisesTokens() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let token = DeviceClient.randomToken()
            let spaced = "<" + stride(from: 0, to: 64, by: 8).map { String(token.uppercased().dropFirst($0).prefix(8)) }.joined(separator: " ") + ">"
            let rid = try await app.register(token: spaced, environment: "sandbox", extra: ["alias": "user1", "tags": ["vip", "beta"], "badge": 4])
            #expect(rid.count == 32 && rid.allSatisfy(\.isHexDigit) && rid == rid.lowercased())
            let again = try await app.register(token: token, environment: "production")
            #expect(again == rid, "the same token (normalised) is the same device")
            let info = try await app.info(rid)
            #expect(info.tags == ["beta", "vip"] && info.alias == "user1" && info.mobile == nil,
                    "a refresh without alias or tags keeps them")
            let device = try #require(try await app.adminDevice(rid))
            #expect(device["token"] as? String == token)
            #expect(device["environment"] as? String == "production", "a refresh moves the token to the environment given")
            #expect(device["badge"] as? Int == 4)

            _ = try await app.register(token: token, extra: ["tags": ["gamma"], "alias": ""])
            let replaced = try await app.info(rid)
            #expect(replaced.tags == ["gamma"] && replaced.alias == nil, "tags given on registration replace; alias \"\" removes")

            let other = try await app.register()
            #expect(other != rid)
        }
    }

    @Test func registrationErrorsAre400With7002AndSayWhy() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let token = DeviceClient.randomToken()
            let cases: [([String: Any], String)] = [
                (["platform": "ios", "token": token], "environment"),
                (["platform": "ios", "token": token + "a", "environment": "sandbox"], "even number"),
                (["platform": "ios", "token": "abcd", "environment": "sandbox"], "64 to 200"),
                (["platform": "ios", "token": token.replacingOccurrences(of: token.prefix(1), with: "z"), "environment": "sandbox"], "hex"),
                (["platform": "ios", "token": token, "environment": "development"], "sandbox"),
                (["platform": "winphone", "token": token, "environment": "sandbox"], "platform"),
                (["platform": "android", "token": "fcm token"], "FCM registration token"),
                (["platform": "android", "token": String(repeating: "a", count: 4097)], "4097 bytes"),
                (["platform": "ios", "token": token, "environment": "sandbox", "alias": "no spaces"], "alias"),
                (["platform": "ios", "token": token, "environment": "sandbox", "color": "red"], "color"),
                (["platform": "ios", "token": 42, "environment": "sandbox"], "token"),
            ]
            for (body, needle) in cases {
                let reply = try await app.request("POST", "/v3/devices", json: body)
                #expect(reply.status == 400 && reply.errorCode == 7002, "\(body)")
                #expect(reply.errorMessage?.contains(needle) == true, "\(reply.errorMessage ?? "") should mention \(needle)")
            }
            let unauthorised = try await relay.request("POST", "/v3/devices", auth: .basic(app.key, "wrong"), json: ["platform": "ios"])
            #expect(unauthorised.status == 401 && unauthorised.errorCode == 7004)
            let noAuth = try await relay.request("GET", "/v3/tags", auth: .none)
            #expect(noAuth.status == 401 && noAuth.errorCode == 7004)
        }
    }

    @Test func deviceUpdateTagsAliasMobileBadgeAndEmptyStrings() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let rid = try await app.register()
            let set = try await app.request("POST", "/v3/devices/\(rid)", json: [
                "tags": ["add": ["a", "b", "c"], "remove": [String]()], "alias": "alice", "mobile": "+8613800000000", "badge": 9,
            ])
            #expect(set.status == 200 && set.body.isEmpty)
            var info = try await app.info(rid)
            #expect(info.tags == ["a", "b", "c"] && info.alias == "alice" && info.mobile == "+8613800000000")
            #expect(try await app.adminDevice(rid)?["badge"] as? Int == 9)

            #expect(try await app.request("POST", "/v3/devices/\(rid)", json: ["tags": ["remove": ["b"], "add": ["d"]]]).status == 200)
            info = try await app.info(rid)
            #expect(info.tags == ["a", "c", "d"] && info.alias == "alice", "a call without alias keeps it")

            #expect(try await app.request("POST", "/v3/devices/\(rid)", json: ["tags": "", "alias": "", "mobile": "", "badge": 0]).status == 200)
            info = try await app.info(rid)
            #expect(info.tags.isEmpty && info.alias == nil && info.mobile == nil)
            #expect(try await app.adminDevice(rid)?["badge"] as? Int == 0)

            let nonEmptyString = try await app.request("POST", "/v3/devices/\(rid)", json: ["tags": "vip"])
            #expect(nonEmptyString.status == 400 && nonEmptyString.errorCode == 7002)
            let badTag = try await app.request("POST", "/v3/devices/\(rid)", json: ["tags": ["add": ["bad tag"]]])
            #expect(badTag.status == 400 && badTag.errorCode == 7002 && badTag.errorMessage?.contains("bad tag") == true)
            let negative = try await app.request("POST", "/v3/devices/\(rid)", json: ["badge": -1])
            #expect(negative.status == 400 && negative.errorCode == 7002)
            let unknownField = try await app.request("POST", "/v3/devices/\(rid)", json: ["nickname": "x"])
            #expect(unknownField.status == 400 && unknownField.errorCode == 7002)
        }
    }

    @Test func tagLimitsPerCallAndPerDevice() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let rid = try await app.register()
            let tooMany = try await app.request("POST", "/v3/devices/\(rid)", json: ["tags": ["add": (0...100).map { "t\($0)" }]])
            #expect(tooMany.status == 400 && tooMany.errorCode == 7002 && tooMany.errorMessage?.contains("at most 100") == true)
            for batch in 0..<10 {
                let reply = try await app.request("POST", "/v3/devices/\(rid)", json: ["tags": ["add": (0..<100).map { "t\(batch)_\($0)" }]])
                #expect(reply.status == 200)
            }
            #expect(try await app.info(rid).tags.count == 1000)
            let overflow = try await app.request("POST", "/v3/devices/\(rid)", json: ["tags": ["add": ["one_more"]], "alias": "x"])
            #expect(overflow.status == 400 && overflow.errorCode == 7002 && overflow.errorMessage?.contains("1000") == true)
            let after = try await app.info(rid)
            #expect(after.tags.count == 1000 && !after.tags.contains("one_more") && after.alias == nil,
                    "a refused update changes nothing, not even the alias")
            let swap = try await app.request("POST", "/v3/devices/\(rid)", json: ["tags": ["add": ["one_more"], "remove": ["t0_0"]]])
            #expect(swap.status == 200, "removing and adding in one call stays within the limit")

            let tagged = try await app.request("POST", "/v3/tags/full", json: ["registration_ids": ["add": [rid]]])
            #expect(tagged.status == 400 && tagged.errorCode == 7002, "the tag call respects the per-device limit too")
        }
    }

    @Test func unknownRegistrationIDsAre7002() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let known = try await app.register()
            for rid in [String(repeating: "0", count: 32), "not-a-rid", known.uppercased()] {
                let get = try await app.request("GET", "/v3/devices/\(rid)")
                #expect(get.status == 400 && get.errorCode == 7002 && get.errorMessage?.contains(rid) == true)
                let post = try await app.request("POST", "/v3/devices/\(rid)", json: ["alias": "x"])
                #expect(post.status == 400 && post.errorCode == 7002)
                let check = try await app.request("GET", "/v3/tags/vip/registration_ids/\(rid)")
                #expect(check.status == 400 && check.errorCode == 7002)
                let tag = try await app.request("POST", "/v3/tags/vip", json: ["registration_ids": ["add": [known, rid]]])
                #expect(tag.status == 400 && tag.errorCode == 7002)
                let status = try await app.request("POST", "/v3/devices/status", json: ["registration_ids": [known, rid]])
                #expect(status.status == 400 && status.errorCode == 7002)
            }
            #expect(try await app.info(known).tags.isEmpty, "a tag call naming an unknown id changes nothing")
            let noAPI = try await app.request("GET", "/v3/devices")
            #expect(noAPI.status == 405)
        }
    }

    @Test func onlineStatus() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let fresh = try await app.register()
            let stale = try await app.register()
            try await relay.pool.query("UPDATE devices SET last_seen_at = '2026-01-02 03:04:05+00' WHERE registration_id = $1::uuid", [stale])
            let reply = try await app.request("POST", "/v3/devices/status", json: ["registration_ids": [fresh, stale]])
            #expect(reply.status == 200)
            let freshStatus = try #require(reply.json[fresh] as? [String: Any])
            let staleStatus = try #require(reply.json[stale] as? [String: Any])
            #expect(freshStatus["online"] as? Bool == true)
            #expect(staleStatus["online"] as? Bool == false && staleStatus["last_online_time"] as? String == "2026-01-02 03:04:05")
            let time = freshStatus["last_online_time"] as? String ?? ""
            #expect(time.range(of: #"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$"#, options: .regularExpression) != nil)

            // A delivery APNs accepted counts as a sighting; one it refused does not. Written
            // as the pipeline writes them: a span holding the device, or a row of another outcome.
            func deliver(_ message: Int, _ outcome: String, at: String) async throws {
                try await relay.pool.query(outcome == "sent" ? """
                    INSERT INTO delivery_spans (message_id, app_id, lo, hi, device_ids, at)
                    SELECT pushrelay_message_id_at(now()) + $2, app_id, id, id, ARRAY[id], $3::timestamptz FROM devices WHERE registration_id = $1::uuid
                    """ : """
                    INSERT INTO deliveries (message_id, device_id, outcome, at)
                    SELECT pushrelay_message_id_at(now()) + $2, id, 'failed', $3::timestamptz FROM devices WHERE registration_id = $1::uuid
                    """, [stale, message, at])
            }
            try await deliver(1, "failed", at: "2026-01-03 00:00:00+00")
            try await deliver(2, "sent", at: "2026-01-02 09:00:00+00")
            let delivered = try await app.request("POST", "/v3/devices/status", json: ["registration_ids": [stale]])
            #expect((delivered.json[stale] as? [String: Any])?["last_online_time"] as? String == "2026-01-02 09:00:00")
            #expect((delivered.json[stale] as? [String: Any])?["online"] as? Bool == false)
            try await deliver(5000, "sent", at: Date().formatted(.iso8601))
            let now = try await app.request("POST", "/v3/devices/status", json: ["registration_ids": [stale]])
            #expect((now.json[stale] as? [String: Any])?["online"] as? Bool == true)

            let tooMany = try await app.request("POST", "/v3/devices/status", json: ["registration_ids": (0...1000).map { _ in fresh + "x" }])
            #expect(tooMany.status == 400 && tooMany.errorCode == 7002)
            let missing = try await app.request("POST", "/v3/devices/status", json: [String: String]())
            #expect(missing.status == 400 && missing.errorCode == 7002)
        }
    }

    /// Status finds a device's spans through the GiST index of its app and ids (with
    /// sequential scans off, a missing index shows up as one): no scan of the spans.
    @Test func statusLooksSpansUpByTheirIndex() async throws {
        try await RelayHarness.with { relay in
            let plan = try await relay.pool.withConnection { connection in
                try connection.transaction { connection in
                    try connection.query("SET LOCAL enable_seqscan = off")
                    return try connection.query("EXPLAIN " + DeviceStatements.status.text, [Int64(1), "{1,2,3}"])
                        .map { try $0.string("QUERY PLAN") }.joined(separator: "\n")
                }
            }
            #expect(!plan.contains("Seq Scan"), "\(plan)")
            #expect(plan.contains("Scan on delivery_spans_") || plan.contains("Scan using delivery_spans_"), "\(plan)")
            #expect(plan.contains("Index Cond: ((int8range(app_id, app_id, '[]'::text) @> '1'::bigint) AND (int8range(lo, hi, '[]'::text) @> d.id))"),
                    "both keys are index conditions: \(plan)")
        }
    }
}
