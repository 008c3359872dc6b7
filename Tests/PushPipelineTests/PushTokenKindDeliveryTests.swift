import APNSSimulator
import Foundation
@testable import RelayAPI
import RelayStore
import Testing

/// End to end (issue 29): devices register location, complication, File Provider and Push to
/// Talk tokens beside their notification tokens (`device_push_tokens`); a push of one of those
/// types reaches only that kind's tokens with its topic, push type and priority, on a simulator
/// that refuses a token sent another kind of push (`--token-kind-prefix`, as real APNs answers
/// DeviceTokenNotForTopic). A refused token is dropped for its kind only.
@Suite struct PushTokenKindDeliveryTests {
    /// Each kind's tokens start with its prefix on the simulator.
    static let prefixes = ["voip": "ee", "location": "e1", "complication": "e2", "fileprovider": "e3", "pushtotalk": "e4"]

    static func token(_ kind: String, _ n: Int) -> String { PipelineHarness.token(prefix: prefixes[kind]!, index: n) }

    static func simulate(_ configuration: inout APNSSimulatorConfiguration) {
        configuration.tokenKindPrefixes = prefixes
        configuration.badTokenPrefix = "e1bad"
    }

    @Test func eachPushTypeReachesOnlyItsKindOfToken() async throws {
        try await PipelineHarness.with(simulate: Self.simulate) { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 3, prefix: "d3")
            let rids = try await relay.pool.query(
                "SELECT replace(registration_id::text, '-', '') AS rid FROM devices WHERE app_id = $1 ORDER BY id", [app.id])
                .map { try $0.string("rid") }
            // Device 0: location and File Provider; device 1: location, Push to Talk and VoIP;
            // device 2: only its notification token.
            let registered: [(Int, String, String)] = [
                (0, "location", Self.token("location", 1)), (0, "fileprovider", Self.token("fileprovider", 1)),
                (1, "location", Self.token("location", 2)), (1, "pushtotalk", Self.token("pushtotalk", 2)), (1, "voip", Self.token("voip", 2)),
            ]
            for (device, kind, token) in registered {
                let reply = try await relay.request("POST", "/v3/devices", auth: app.auth, json: [
                    "platform": "ios", "token": token, "token_type": kind, "registration_id": rids[device],
                ])
                #expect(reply.status == 200, "\(kind): \(reply.text)")
            }

            // The admin listing shows each device's tokens by kind, VoIP included.
            let listing = try await relay.request("GET", "/admin/v1/apps/\(app.key)/devices")
            let listed = try #require(listing.json["devices"] as? [[String: Any]])
            let kinds = listed.map { (($0["push_tokens"] as? [[String: Any]]) ?? []).map { "\($0["kind"] ?? ""):\($0["token"] ?? "")" } }
            #expect(kinds == [
                ["fileprovider:\(Self.token("fileprovider", 1))", "location:\(Self.token("location", 1))"],
                ["location:\(Self.token("location", 2))", "pushtotalk:\(Self.token("pushtotalk", 2))", "voip:\(Self.token("voip", 2))"],
                [],
            ])

            // The dashboard counts them by kind.
            let dashboard = try #require(try await DashboardApp.read(key: app.key, pool: relay.pool).first)
            #expect(dashboard.pushTokens == ["location": 2, "fileprovider": 1, "pushtotalk": 1, "voip": 1])
            let page = DashboardPages.app(dashboard, bars: [], failures: [:], messages: [], now: Date(), csrf: "c")
            #expect(page.contains("location tokens") && page.contains("Push to Talk tokens") && !page.contains("complication tokens"))

            let suffixes = ["location": ".location-query", "fileprovider": ".pushkit.fileprovider", "pushtotalk": ".voip-ptt"]
            for (kind, suffix) in suffixes.sorted(by: { $0.key < $1.key }) {
                relay.simulator.reset()
                let id = try await relay.accepted(app, [
                    "platform": "ios", "audience": "all", "notification": ["ios": ["push_type": kind, "extras": ["k": kind]]],
                ])
                let message = try await relay.waitUntilFinished(id)
                let expected = Set(registered.filter { $0.1 == kind }.map(\.2))
                #expect(try message.int("target_count") == expected.count, "\(kind)")
                #expect(try message.int("sent_count") == expected.count, "\(kind)")
                let reached = relay.simulator.deliveries().filter { $0.msgID == id }
                #expect(Set(reached.map(\.token)) == expected, "\(kind)")
                #expect(reached.allSatisfy {
                    $0.topic == PipelineHarness.topic + suffix && $0.pushType == kind && $0.priority == "10" && $0.json["k"] as? String == kind
                }, "\(kind)")
                #expect(relay.simulator.stats.rejectedTotal == 0, "\(kind)")
            }

            // A targeted location push at priority 5: the named devices' location tokens only.
            relay.simulator.reset()
            let query = try await relay.accepted(app, [
                "platform": "ios", "audience": ["registration_id": [rids[1], rids[2]]], "notification": ["ios": ["push_type": "location"]],
                "options": ["apns_priority": 5],
            ])
            try await relay.waitUntilFinished(query)
            let asked = relay.simulator.deliveries().filter { $0.msgID == query }
            #expect(asked.map(\.token) == [Self.token("location", 2)])
            #expect(asked.first?.priority == "5")

            // Nobody holds a complication token: 1011 like any audience without devices.
            let none = try await relay.push(app, ["platform": "ios", "audience": "all", "notification": ["ios": ["push_type": "complication"]]])
            #expect(none.status == 400)
            #expect(none.errorCode == 1011)

            // Alerts still go to the notification tokens only.
            relay.simulator.reset()
            let alert = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "hi"]])
            try await relay.waitUntilFinished(alert)
            #expect(Set(relay.simulator.deliveries().filter { $0.msgID == alert }.map(\.token)) == Set(tokens))
            #expect(relay.simulator.stats.rejectedTotal == 0)
        }
    }

    @Test func aRefusedTokenIsDroppedForItsKindOnly() async throws {
        try await PipelineHarness.with(simulate: Self.simulate) { relay in
            let app = try await relay.createApp()
            let token = try await relay.insertDevices(app, count: 1, prefix: "d4")[0]
            let rid = try await relay.pool.query("SELECT replace(registration_id::text, '-', '') AS rid FROM devices WHERE token = $1", [token])
                .first!.string("rid")
            let dead = "e1bad" + String(repeating: "0", count: 59)
            for (kind, kindToken) in [("location", dead), ("pushtotalk", Self.token("pushtotalk", 9))] {
                let reply = try await relay.request("POST", "/v3/devices", auth: app.auth, json: [
                    "platform": "ios", "token": kindToken, "token_type": kind, "registration_id": rid,
                ])
                #expect(reply.status == 200, "\(reply.text)")
            }
            let location = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["ios": ["push_type": "location"]]])
            try await relay.waitUntilFinished(location)
            let kinds = try await relay.pool.query("SELECT kind FROM device_push_tokens WHERE app_id = $1 ORDER BY kind", [app.id])
                .map { try $0.string("kind") }
            #expect(kinds == ["pushtotalk"], "the location token is dropped, the Push to Talk token stays")
            #expect(try await relay.pool.query("SELECT active FROM devices WHERE app_id = $1", [app.id]).first?.bool("active") == true)

            let talk = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["ios": ["push_type": "pushtotalk"]]])
            try await relay.waitUntilFinished(talk)
            #expect(relay.simulator.deliveries().filter { $0.msgID == talk }.map(\.token) == [Self.token("pushtotalk", 9)])
            let alert = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "still here"]])
            try await relay.waitUntilFinished(alert)
            #expect(relay.simulator.deliveries(token: token).first?.msgID == alert)
        }
    }

    /// From the phone: the device secret gives the device a token of a kind; a token moved to
    /// another device leaves the first.
    @Test func aDeviceGivesItselfATokenOfAKindWithItsSecret() async throws {
        try await PipelineHarness.with(simulate: Self.simulate) { relay in
            let app = try await relay.createApp()
            let issued = try await relay.request("POST", "/admin/v1/apps/\(app.key)/client-keys", json: ["name": "phone"])
            let clientKey = try #require(issued.json["client_key"] as? String)
            var devices: [(rid: String, secret: String)] = []
            for index in 1...2 {
                let registered = try await relay.request("POST", "/client/v1/devices", auth: .bearer(clientKey), json: [
                    "platform": "ios", "token": PipelineHarness.token(prefix: "c3", index: index), "environment": "production",
                ])
                devices.append((try #require(registered.json["registration_id"] as? String), try #require(registered.json["device_secret"] as? String)))
            }
            let shared = Self.token("fileprovider", 5)
            for device in devices {
                let patched = try await relay.request("PATCH", "/client/v1/devices/\(device.rid)", auth: .bearer(device.secret),
                                                      json: ["token_type": "fileprovider", "token": shared])
                #expect(patched.status == 200, "\(patched.text)")
            }
            let holders = try await relay.pool.query("""
                SELECT replace(d.registration_id::text, '-', '') AS rid FROM device_push_tokens k JOIN devices d ON d.id = k.device_id
                WHERE k.app_id = $1
                """, [app.id]).map { try $0.string("rid") }
            #expect(holders == [devices[1].rid], "the token moved to the last device that registered it")

            let sync = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["ios": ["push_type": "fileprovider"]]])
            try await relay.waitUntilFinished(sync)
            #expect(relay.simulator.deliveries().filter { $0.msgID == sync }.map(\.token) == [shared])
        }
    }

    @Test func registrationRefusesWhatItCannotHold() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let bodies: [[String: Any]] = [
                ["platform": "ios", "token": Self.token("location", 1), "token_type": "location"],
                ["platform": "ios", "token": Self.token("location", 1), "token_type": "location", "registration_id": "0123456789abcdef0123456789abcdef"],
                ["platform": "android", "token": Self.token("location", 1), "token_type": "pushtotalk", "registration_id": "0123456789abcdef0123456789abcdef"],
                ["platform": "ios", "token": "xyz", "token_type": "complication", "registration_id": "0123456789abcdef0123456789abcdef"],
            ]
            for body in bodies {
                let reply = try await relay.request("POST", "/v3/devices", auth: app.auth, json: body)
                #expect(reply.status == 400, "\(body): \(reply.text)")
                #expect(reply.errorCode == 7002, "\(body): \(reply.text)")
            }
            let unknown = try await relay.request("POST", "/v3/devices", auth: app.auth, json: [
                "platform": "ios", "token": Self.token("location", 1), "token_type": "pushkit",
            ])
            #expect(unknown.status == 400)
            #expect(unknown.text.contains(#"\"location\", \"complication\", \"fileprovider\", \"pushtotalk\""#), "\(unknown.text)")
        }
    }
}
