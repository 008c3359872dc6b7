import Foundation
@testable import RelayAPI
import Testing

/// Receipts (issue 28): a device reports with its own secret that messages reached it or
/// were opened; each counts once per (message, device, event) in JPush's reports, and a
/// receipt never tells whether a msg_id exists in another app.
@Suite struct ReceiptTests {
    typealias ClientApp = ClientKeyTests.ClientApp

    /// A message of the app accepted `daysAgo` days ago (its id says so), as the pipeline
    /// stores one; its msg_id.
    static func message(_ app: ClientApp, daysAgo: Int = 0) async throws -> Int64 {
        let rows = try await app.relay.pool.query("""
            INSERT INTO messages (id, app_id, body, environment, lane, state, accepted_at, expires_at, target_count, sent_count)
            SELECT pushrelay_message_id_at(now() - make_interval(days => $2)) + (random() * 1000000)::bigint, a.id, '{}', 'sandbox',
                   'targeted', 'done', extract(epoch FROM now())::bigint, now(), 2, 2
            FROM apps a WHERE a.app_key = $1
            RETURNING id
            """, [app.device.key, daysAgo])
        return Int64(try rows[0].int("id"))
    }

    /// A device of the app registered through its client key on `platform`.
    static func device(_ app: ClientApp, platform: String = "ios") async throws -> (rid: String, secret: String) {
        if platform == "ios" { return try await app.registered() }
        let reply = try await app.register(token: "fcm:\(UUID().uuidString)", platform: platform)
        guard let rid = reply.json["registration_id"] as? String, let secret = reply.json["device_secret"] as? String else {
            throw HarnessError("android registration: \(reply.status)")
        }
        return (rid, secret)
    }

    static func report(_ app: ClientApp, _ device: (rid: String, secret: String), _ body: [String: Any]) async throws -> RelayHarness.Reply {
        var body = body
        body["registration_id"] = device.rid
        return try await app.relay.request("POST", "/client/v1/receipts", auth: .bearer(device.secret), json: body)
    }

    /// (recorded, duplicates, dropped) of a 200 answer.
    static func tally(_ reply: RelayHarness.Reply) -> [Int] {
        guard reply.status == 200 else { return [-reply.status] }
        return ["recorded", "duplicates", "dropped"].map { reply.json[$0] as? Int ?? -1 }
    }

    @Test func receiptsAreCountedOncePerMessageDeviceAndEvent() async throws {
        try await RelayHarness.with(rateLimits: ClientKeyTests.generous) { relay in
            let app = try await ClientApp.make(relay)
            let msg = try await Self.message(app)
            let phone = try await Self.device(app)
            let android = try await Self.device(app, platform: "android")

            // One receipt, the msg_id as a string; again: a duplicate.
            #expect(Self.tally(try await Self.report(app, phone, ["msg_id": String(msg), "event": "received"])) == [1, 0, 0])
            #expect(Self.tally(try await Self.report(app, phone, ["msg_id": String(msg), "event": "received"])) == [0, 1, 0])
            // A batch, msg_ids as numbers: one new, one known before, one twice in the batch.
            let batch: [[String: Any]] = [["msg_id": msg, "event": "opened"], ["msg_id": msg, "event": "received"],
                                          ["msg_id": msg, "event": "opened", "at": 1]]
            #expect(Self.tally(try await Self.report(app, phone, ["receipts": batch])) == [1, 2, 0])
            // The Android device's, at a time before the message existed: kept at its acceptance.
            #expect(Self.tally(try await Self.report(app, android, ["msg_id": msg, "event": "received", "at": 0])) == [1, 0, 0])

            let rows = try await relay.pool.query("""
                SELECT count(*) AS n, bool_and(r.at >= m.created_at AND r.at <= now()) AS clamped
                FROM receipts r JOIN messages m ON m.id = r.message_id WHERE r.message_id = $1
                """, [msg])
            #expect(try rows[0].int("n") == 3)
            #expect(rows[0]["clamped"] == "t")
            let seen = try await relay.pool.query("""
                SELECT count(*) AS n FROM device_secrets s JOIN devices d ON d.id = s.device_id
                WHERE d.registration_id IN ($1::uuid, $2::uuid) AND s.last_receipt_at IS NOT NULL
                """, [phone.rid, android.rid])
            #expect(try seen[0].int("n") == 2)

            let basic = RelayHarness.Auth.basic(app.device.key, app.device.secret)
            let received = try await relay.request("GET", "/v3/received?msg_ids=\(msg)", auth: basic)
            let first = try #require((try JSONSerialization.jsonObject(with: received.body) as? [[String: Any]])?.first)
            #expect(first["ios_apns_received"] as? Int == 1)
            #expect(first["android_received"] as? Int == 1)
            let detailed = try await relay.request("GET", "/v3/received/detail?msg_ids=\(msg)", auth: basic)
            let detail = try #require((try JSONSerialization.jsonObject(with: detailed.body) as? [[String: Any]])?.first)
            #expect(detail["ios_apns_received"] as? Int == 1)
            #expect(detail["android_pns_received"] as? Int == 1)

            let messages = try await relay.request("GET", "/v3/messages/detail?msg_ids=\(msg)", auth: basic)
            let entry = try #require((try JSONSerialization.jsonObject(with: messages.body) as? [[String: Any]])?.first)
            let notification = try #require((entry["details"] as? [String: Any])?["notification"] as? [String: Any])
            #expect(notification["received"] as? Int == 2)
            #expect(notification["click"] as? Int == 1)
            #expect(notification["display"] is NSNull)
            let apns = try #require((notification["sub_ios"] as? [String: Any])?["apns"] as? [String: Any])
            #expect(apns["received"] as? Int == 1)
            #expect(apns["click"] as? Int == 1)
            let pns = try #require((notification["sub_android"] as? [String: Any])?["android_pns"] as? [String: Any])
            #expect(pns["received"] as? Int == 1)
            #expect(pns["click"] as? Int == 0)

            let admin = try await relay.request("GET", "/admin/v1/messages/\(msg)")
            #expect(admin.json["received"] as? Int == 2)
            #expect(admin.json["opened"] as? Int == 1)
            let funnel = try #require(admin.json["funnel"] as? [String: Any])
            #expect(funnel["received"] as? Int == 2)
            #expect(funnel["opened"] as? Int == 1)
            let platforms = try #require(admin.json["platforms"] as? [String: [String: Int]])
            #expect(platforms["ios"] == ["target": 2, "sent": 2, "received": 1, "opened": 1])
            #expect(platforms["android"] == ["target": 0, "sent": 0, "received": 1, "opened": 0])
        }
    }

    @Test func anOpenedWithoutReceivedCountsAsOpenedOnly() async throws {
        try await RelayHarness.with(rateLimits: ClientKeyTests.generous) { relay in
            let app = try await ClientApp.make(relay)
            let msg = try await Self.message(app)
            let untouched = try await Self.message(app)
            let phone = try await Self.device(app)
            #expect(Self.tally(try await Self.report(app, phone, ["msg_id": msg, "event": "opened"])) == [1, 0, 0])
            let basic = RelayHarness.Auth.basic(app.device.key, app.device.secret)
            let reply = try await relay.request("GET", "/v3/received?msg_ids=\(msg),\(untouched)", auth: basic)
            let answers = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]])
            // Numbers, not null, once the relay can count them: 0 before any receipt.
            #expect(answers.map { $0["ios_apns_received"] as? Int } == [0, 0])
            let admin = try await relay.request("GET", "/admin/v1/messages/\(msg)")
            #expect(admin.json["received"] as? Int == 0)
            #expect(admin.json["opened"] as? Int == 1)
        }
    }

    /// Unknown msg_ids, another app's message and one older than the retention are dropped
    /// with the same answer, and change nothing anywhere.
    @Test func foreignUnknownAndExpiredMessagesAreDroppedAlike() async throws {
        try await RelayHarness.with(rateLimits: ClientKeyTests.generous) { relay in
            let app = try await ClientApp.make(relay)
            let other = try await ClientApp.make(relay)
            let theirs = try await Self.message(other)
            let old = try await Self.message(app, daysAgo: 40)
            let phone = try await Self.device(app)
            var answers: Set<Data> = []
            for msg in [theirs, old, 4_611_686_018_427_387_903] {
                let reply = try await Self.report(app, phone, ["msg_id": msg, "event": "received"])
                #expect(Self.tally(reply) == [0, 0, 1], "\(msg)")
                answers.insert(reply.body)
            }
            #expect(answers.count == 1, "the same bytes whatever the reason")
            let batch = [theirs, old, 42].map { ["msg_id": $0, "event": "opened"] as [String: Any] }
            #expect(Self.tally(try await Self.report(app, phone, ["receipts": batch])) == [0, 0, 3])
            #expect(try await relay.pool.query("SELECT count(*) AS n FROM receipts")[0].int("n") == 0)
            #expect(try await relay.pool.query("SELECT count(*) AS n FROM message_receipt_counts")[0].int("n") == 0)
        }
    }

    @Test func onlyTheDevicesOwnSecretReports() async throws {
        try await RelayHarness.with(rateLimits: ClientKeyTests.generous) { relay in
            let app = try await ClientApp.make(relay)
            let msg = try await Self.message(app)
            let mine = try await Self.device(app)
            let theirs = try await Self.device(app)
            let other = try await ClientApp.make(relay)
            let foreign = try await Self.device(other)
            let body: [String: Any] = ["msg_id": msg, "event": "received"]

            for (rid, secret) in [(theirs.rid, mine.secret), (mine.rid, theirs.secret), (foreign.rid, mine.secret),
                                  (mine.rid, String(repeating: "0", count: 32)), (mine.rid, app.clientKey), ("nonsense", mine.secret)] {
                let reply = try await Self.report(app, (rid, secret), body)
                #expect(reply.status == 403, "\(rid)")
                #expect(reply.errorCode == 7004, "\(rid)")
            }
            let anonymous = try await relay.request("POST", "/client/v1/receipts", auth: .none, json: body.merging(["registration_id": mine.rid]) { $1 })
            #expect(anonymous.status == 401)
            #expect(anonymous.errorCode == 7004)
            // Nor can the admin token report for a device.
            #expect(try await relay.request("POST", "/client/v1/receipts", json: body.merging(["registration_id": mine.rid]) { $1 }).status == 403)
            #expect(try await relay.pool.query("SELECT count(*) AS n FROM receipts")[0].int("n") == 0)
        }
    }

    @Test func badShapesAre400InTheDeviceFamily() async throws {
        try await RelayHarness.with(rateLimits: ClientKeyTests.generous) { relay in
            let app = try await ClientApp.make(relay)
            let msg = try await Self.message(app)
            let phone = try await Self.device(app)
            let one: [String: Any] = ["msg_id": msg, "event": "received"]
            let bodies: [[String: Any]] = [
                [:], ["msg_id": msg], ["event": "received"], ["msg_id": msg, "event": "clicked"], ["msg_id": "abc", "event": "received"],
                ["msg_id": -1, "event": "received"], ["msg_id": 1.5, "event": "received"], ["msg_id": msg, "event": "received", "at": -1],
                ["msg_id": msg, "event": "received", "at": "now"], ["msg_id": msg, "event": "received", "at": 1e13],
                ["msg_id": msg, "event": "received", "extra": 1], ["receipts": []], ["receipts": Array(repeating: one, count: 101)],
                ["receipts": one], ["receipts": [one], "msg_id": msg], ["receipts": [one, ["msg_id": msg]]], ["receipts": [1]],
                ["receipts": [one.merging(["extra": true]) { $1 }]],
            ]
            for body in bodies {
                let reply = try await Self.report(app, phone, body)
                #expect(reply.status == 400, "\(body)")
                #expect(reply.errorCode == 7002, "\(body)")
            }
            let notJSON = try await relay.request("POST", "/client/v1/receipts", auth: .bearer(phone.secret), body: Data("msg_id=1".utf8))
            #expect(notJSON.status == 400)
            #expect(notJSON.errorCode == 7002)
            // The most a batch holds is fine.
            #expect(Self.tally(try await Self.report(app, phone, ["receipts": Array(repeating: one, count: 100)])) == [1, 99, 0])
        }
    }
}
