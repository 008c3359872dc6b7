import APNSSimulator
import Foundation
import Testing

/// End to end (issue 29): devices register PushKit VoIP tokens beside their notification
/// tokens; a VoIP push reaches only VoIP tokens (`<bundle>.voip`, `apns-push-type: voip`,
/// priority 10) and an alert push only notification tokens, on a simulator that refuses a
/// token sent the other kind (`--voip-token-prefix`, as real APNs answers
/// DeviceTokenNotForTopic). A VoIP token APNs refuses is cleared and leaves the device active.
@Suite struct VoIPDeliveryTests {
    static let voipPrefix = "ee"

    /// A VoIP token the simulator knows as one: the prefix, then `n` in hex.
    static func voipToken(_ n: Int) -> String {
        voipPrefix + String(repeating: "0", count: 54) + String(format: "%08x", n)
    }

    @Test func aVoIPPushReachesOnlyVoIPTokensAndAnAlertOnlyNotificationTokens() async throws {
        try await PipelineHarness.with(simulate: { $0.voipTokenPrefix = Self.voipPrefix; $0.badTokenPrefix = "eebad" }) { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 3, prefix: "d1")
            let rids = try await relay.pool.query(
                "SELECT replace(registration_id::text, '-', '') AS rid, token FROM devices WHERE app_id = $1 ORDER BY id", [app.id])
                .map { try $0.string("rid") }
            // Devices 0 and 1 register a VoIP token; device 2 has none.
            let voipTokens = [Self.voipToken(1), Self.voipToken(2)]
            for (rid, token) in zip(rids, voipTokens) {
                let reply = try await relay.request("POST", "/v3/devices", auth: app.auth, json: [
                    "platform": "ios", "token": token, "token_type": "voip", "registration_id": rid,
                ])
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply.json["registration_id"] as? String == rid)
            }

            let voip = try await relay.accepted(app, [
                "platform": "ios", "audience": "all",
                "notification": ["ios": ["push_type": "voip", "extras": ["caller": "Bob"]]],
            ])
            let message = try await relay.waitUntilFinished(voip)
            #expect(try message.int("target_count") == 2)
            #expect(try message.int("sent_count") == 2)
            let reached = relay.simulator.deliveries().filter { $0.msgID == voip }
            #expect(Set(reached.map(\.token)) == Set(voipTokens))
            #expect(reached.allSatisfy {
                $0.topic == PipelineHarness.topic + ".voip" && $0.pushType == "voip" && $0.priority == "10" && $0.json["caller"] as? String == "Bob"
            })

            relay.simulator.reset()
            let alert = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "hi"]])
            try await relay.waitUntilFinished(alert)
            #expect(Set(relay.simulator.deliveries().filter { $0.msgID == alert }.map(\.token)) == Set(tokens))
            #expect(relay.simulator.stats.rejectedTotal == 0)

            // JPush's notification.voip alone is a VoIP push too.
            relay.simulator.reset()
            let jpush = try await relay.accepted(app, ["platform": "all", "audience": "all", "notification": ["voip": ["caller": "Ann"]]])
            try await relay.waitUntilFinished(jpush)
            let rang = relay.simulator.deliveries().filter { $0.msgID == jpush }
            #expect(Set(rang.map(\.token)) == Set(voipTokens))
            #expect(rang.allSatisfy { $0.pushType == "voip" && $0.json["caller"] as? String == "Ann" })

            // A targeted VoIP push by registration id: only the device's VoIP token.
            relay.simulator.reset()
            let call = try await relay.accepted(app, [
                "platform": "ios", "audience": ["registration_id": [rids[1], rids[2]]], "notification": ["ios": ["push_type": "voip"]],
            ])
            try await relay.waitUntilFinished(call)
            #expect(relay.simulator.deliveries().filter { $0.msgID == call }.map(\.token) == [voipTokens[1]])
        }
    }

    @Test func aRefusedVoIPTokenIsClearedAndTheNotificationTokenLives() async throws {
        try await PipelineHarness.with(simulate: { $0.voipTokenPrefix = Self.voipPrefix; $0.badTokenPrefix = "eebad" }) { relay in
            let app = try await relay.createApp()
            let token = try await relay.insertDevices(app, count: 1, prefix: "d2")[0]
            let rid = try await relay.pool.query("SELECT replace(registration_id::text, '-', '') AS rid FROM devices WHERE token = $1", [token])
                .first!.string("rid")
            let dead = "eebad" + String(repeating: "0", count: 59)
            let reply = try await relay.request("POST", "/v3/devices", auth: app.auth, json: [
                "platform": "ios", "token": dead, "token_type": "voip", "registration_id": rid, "environment": "production",
            ])
            #expect(reply.status == 200, "\(reply.text)")

            let voip = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["ios": ["push_type": "voip"]]])
            let message = try await relay.waitUntilFinished(voip)
            #expect(try message.int("target_count") == 1)
            let device = try #require(try await relay.pool.query(
                "SELECT active, voip_token, voip_invalidation_reason FROM devices WHERE app_id = $1", [app.id]).first)
            #expect(try device.bool("active"), "the notification token stays")
            #expect(device["voip_token"] == nil)
            #expect(device["voip_invalidation_reason"] == "BadDeviceToken")

            // Nobody holds a VoIP token now: 1011 like any audience without devices.
            let none = try await relay.push(app, ["platform": "ios", "audience": "all", "notification": ["ios": ["push_type": "voip"]]])
            #expect(none.status == 400)
            #expect(none.errorCode == 1011)
            let alert = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "still here"]])
            try await relay.waitUntilFinished(alert)
            #expect(relay.simulator.deliveries(token: token).first?.msgID == alert)
        }
    }

    /// From the phone: the device secret gives the device its VoIP token.
    @Test func aDeviceGivesItselfAVoIPTokenWithItsSecret() async throws {
        try await PipelineHarness.with(simulate: { $0.voipTokenPrefix = Self.voipPrefix }) { relay in
            let app = try await relay.createApp()
            let (clientKey, rid, secret) = try await relay.registerFromThePhone(app, token: PipelineHarness.token(prefix: "c2", index: 1))
            let voipToken = Self.voipToken(7)
            let body: [String: Any] = ["token_type": "voip", "token": voipToken]
            #expect(try await relay.request("PATCH", "/client/v1/devices/\(rid)", auth: .bearer(clientKey), json: body).status == 403)
            let patched = try await relay.request("PATCH", "/client/v1/devices/\(rid)", auth: .bearer(secret), json: body)
            #expect(patched.status == 200, "\(patched.text)")

            let call = try await relay.accepted(app, [
                "platform": "ios", "audience": ["registration_id": [rid]], "notification": ["ios": ["push_type": "voip"]],
            ])
            try await relay.waitUntilFinished(call)
            #expect(relay.simulator.deliveries().filter { $0.msgID == call }.map(\.token) == [voipToken])
        }
    }

    @Test func voipRegistrationRefusesWhatItCannotHold() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let bodies: [([String: Any], Int)] = [
                (["platform": "ios", "token": Self.voipToken(1), "token_type": "voip"], 400),
                (["platform": "ios", "token": Self.voipToken(1), "token_type": "voip", "registration_id": "0123456789abcdef0123456789abcdef"], 400),
                (["platform": "ios", "token": "xyz", "token_type": "voip", "registration_id": "0123456789abcdef0123456789abcdef"], 400),
                (["platform": "ios", "token": Self.voipToken(1), "token_type": "pushkit"], 400),
            ]
            for (body, status) in bodies {
                let reply = try await relay.request("POST", "/v3/devices", auth: app.auth, json: body)
                #expect(reply.status == status, "\(body): \(reply.text)")
                #expect(reply.errorCode == 7002, "\(body): \(reply.text)")
            }
        }
    }
}
