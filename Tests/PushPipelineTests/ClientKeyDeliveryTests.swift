import Foundation
import Testing

/// Issue 28: a device registered from the phone with a client key (no backend proxy) gets
/// the app's pushes through APNs (the simulator), until it unregisters itself.
@Suite struct ClientKeyDeliveryTests {
    /// Issues the app a client key and registers `token` (iOS, production) with it, as the
    /// app on the phone does: the registration id and the device secret.
    static func registerFromThePhone(_ relay: PipelineHarness, _ app: PipelineHarness.App, token: String) async throws -> (rid: String, secret: String) {
        let issued = try await relay.request("POST", "/admin/v1/apps/\(app.key)/client-keys", json: ["name": "phone"])
        let clientKey = try #require(issued.json["client_key"] as? String)
        let registered = try await relay.request("POST", "/client/v1/devices", auth: .bearer(clientKey),
                                                 json: ["platform": "ios", "token": token, "environment": "production"])
        #expect(registered.status == 200, "\(registered.text)")
        return (try #require(registered.json["registration_id"] as? String), try #require(registered.json["device_secret"] as? String))
    }

    @Test func aDeviceRegisteredWithAClientKeyGetsAPush() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let token = PipelineHarness.token(prefix: "c1", index: 1)
            let (rid, secret) = try await Self.registerFromThePhone(relay, app, token: token)

            let msgID = try await relay.accepted(app, ["platform": "all", "audience": ["registration_id": [rid]], "notification": ["alert": "hi"]])
            let message = try await relay.waitUntilFinished(msgID)
            #expect(try message.int("sent_count") == 1)
            #expect(relay.simulator.deliveries().filter { $0.msgID == msgID }.map(\.token) == [token])

            // Unregistered by the device itself, it is no audience any more.
            #expect(try await relay.request("DELETE", "/client/v1/devices/\(rid)", auth: .bearer(secret)).status == 200)
            let after = try await relay.push(app, ["platform": "all", "audience": ["registration_id": [rid]], "notification": ["alert": "again"]])
            #expect(after.errorCode == 1011, "\(after.text)")
        }
    }

    /// Issue 28's receipts end to end: the payload APNs (the simulator) got carries the
    /// msg_id as JPush's `_j_msgid`, the device reports it received and opened with its own
    /// secret, and JPush's reports and the admin funnel count them.
    @Test func aDevicesReceiptsReachTheReports() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let token = PipelineHarness.token(prefix: "c2", index: 1)
            let (rid, secret) = try await Self.registerFromThePhone(relay, app, token: token)

            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": ["registration_id": [rid]], "notification": ["alert": "hi"]])
            try await relay.waitUntilFinished(msgID)
            let delivery = try #require(relay.simulator.deliveries().first { $0.token == token })
            // A JSON number beside aps, as JPush's own payloads carry it.
            #expect(delivery.json["_j_msgid"] is NSNumber)
            let reported = try #require(delivery.msgID)
            #expect(reported == msgID)

            // What the Notification Service Extension, then the tap, report.
            let receipts = try await relay.request("POST", "/client/v1/receipts", auth: .bearer(secret), json: [
                "registration_id": rid, "receipts": [["msg_id": reported, "event": "received"], ["msg_id": reported, "event": "opened"]],
            ])
            #expect(receipts.status == 200, "\(receipts.text)")
            #expect(receipts.json["recorded"] as? Int == 2)

            let received = try await relay.request("GET", "/v3/received?msg_ids=\(msgID)", auth: app.auth)
            let counts = try #require((try JSONSerialization.jsonObject(with: received.body) as? [[String: Any]])?.first)
            #expect(counts["ios_apns_sent"] as? Int == 1 && counts["ios_apns_received"] as? Int == 1)
            let detail = try await relay.request("GET", "/v3/messages/detail?msg_ids=\(msgID)", auth: app.auth)
            let entry = try #require((try JSONSerialization.jsonObject(with: detail.body) as? [[String: Any]])?.first)
            let notification = (entry["details"] as? [String: Any])?["notification"] as? [String: Any]
            let apns = (notification?["sub_ios"] as? [String: Any])?["apns"] as? [String: Any]
            #expect(apns?["sent"] as? Int == 1 && apns?["received"] as? Int == 1 && apns?["click"] as? Int == 1)
            let funnel = try await relay.request("GET", "/admin/v1/messages/\(msgID)")
            let steps = try #require(funnel.json["funnel"] as? [String: Any])
            #expect(steps["sent"] as? Int == 1 && steps["received"] as? Int == 1 && steps["opened"] as? Int == 1)
        }
    }
}
