import APNSSimulator
import Foundation
import PushRelayKit
import Testing

/// PushRelayKit against a real relay in this process (API, worker, PostgreSQL) sending to
/// the APNs simulator: what the backend client sends is what a device receives.
@Suite(.serialized) struct EndToEndTests {
    static func randomToken() -> Data { Data((0..<32).map { _ in UInt8.random(in: 0...255) }) }

    @Test func devicesTagsAliasesPushAndReport() async throws {
        try await LiveRelay.with { relay in
            let backend = try await relay.makeApp()
            let token = Self.randomToken()
            let hex = DeviceToken(token).hex

            // The device registers (here straight through the client), the backend labels it.
            let rid = try await backend.registerDevice(token: hex, environment: .production)
            #expect(try await backend.registerDevice(token: hex, environment: .production) == rid, "idempotent on the token")
            try await backend.updateDevice(rid, DeviceUpdate(addTags: ["vip", "eu"], alias: "user_42"))
            let info = try await backend.device(rid)
            #expect(info.alias == "user_42")
            #expect(Set(info.tags) == ["vip", "eu"])
            #expect(try await backend.alias("user_42") == [rid])
            #expect(Set(try await backend.tags()).isSuperset(of: ["vip", "eu"]))
            #expect(try await backend.tag("vip", contains: rid))
            try await backend.updateTag("vip", remove: [rid])
            #expect(try await !backend.tag("vip", contains: rid))
            #expect(try await backend.deviceStatus([rid])[rid]?.online == true)

            // The backend's trade alert to one user's alias reaches the device.
            let trade = Push(platform: .ios, audience: .alias("user_42"), notification: PushNotification(ios: IOSNotification(
                alert: .rich(title: "Trade filled", subtitle: nil, body: "Bought 100 AAPL at 190.00"), sound: "default",
                badge: .add(1), extras: ["route": "trade", "id": "T-42"])))
            _ = try await backend.validate(trade)
            let result = try await backend.push(trade)
            let delivery = try await poll("the delivery") { relay.simulator.deliveries(token: hex).first }
            #expect(delivery.json["route"] as? String == "trade")
            #expect(delivery.badge == 1)

            // What the app's router makes of exactly those bytes.
            let router = NotificationRouter<String>()
            struct TradeParams: Decodable, Sendable { var id: String }
            router.route("trade") { (p: TradeParams) in "TradeDetail(\(p.id))" }
            let payload = try NotificationPayload(json: Data(delivery.payload))
            #expect(router.destination(for: payload) == "TradeDetail(T-42)")
            #expect(payload.identifier == result.msgID)

            // The report counts it.
            let report = try await poll("the report") {
                try await backend.received(msgIDs: [result.msgID]).first.flatMap { $0.iosApnsSent == 1 ? $0 : nil }
            }
            #expect(report.msgID == result.msgID)
            let status = try await backend.deliveryStatus(msgID: result.msgID, registrationIDs: [rid])
            #expect(status[rid] == .delivered)
            if case .object(let details) = try await backend.messageDetails(msgIDs: [result.msgID]) {
                Issue.record("expected a list of details, got \(details)")
            }

            // The same cid answers the same and sends nothing twice.
            var again = trade
            again.cid = backend.makeCID()
            let first = try await backend.push(again)
            #expect(try await backend.push(again) == first)
            #expect(try await backend.cids(count: 3).count == 3)

            try await backend.removeFromAlias("user_42", registrationIDs: [rid])
            #expect(try await backend.alias("user_42").isEmpty)
            try await backend.deleteTag("eu")
            #expect(try await backend.device(rid).tags.isEmpty)
        }
    }

    @Test func schedulesAreCreatedReadUpdatedAndDeleted() async throws {
        try await LiveRelay.with { relay in
            let backend = try await relay.makeApp()
            _ = try await backend.registerDevice(token: DeviceToken(Self.randomToken()).hex, environment: .production, alias: "user_42")
            let push = Push(audience: .alias("user_42"), notification: PushNotification(alert: "Market opens in 5 minutes"))
            let schedule = Schedule(name: "open bell", trigger: .single(at: Date().addingTimeInterval(3600)), push: push)
            let created = try await backend.createSchedule(schedule)
            #expect(created.name == "open bell")

            let stored = try await backend.schedule(created.scheduleID)
            #expect(stored.name == "open bell" && stored.enabled)
            #expect(stored.trigger == schedule.trigger)
            #expect(stored.nextFireTimes?.count == 1)
            #expect(try await backend.schedules().schedules.map(\.scheduleID) == [created.scheduleID])

            var renamed = schedule
            renamed.name = "opening bell"
            renamed.enabled = false
            let updated = try await backend.updateSchedule(created.scheduleID, renamed)
            #expect(updated.name == "opening bell" && !updated.enabled)
            #expect(try await backend.scheduleMsgIDs(created.scheduleID).isEmpty)

            try await backend.deleteSchedule(created.scheduleID)
            await #expect(throws: PushRelayError.self) { try await backend.schedule(created.scheduleID) }
            do {
                _ = try await backend.schedule(created.scheduleID)
            } catch let error as PushRelayError {
                #expect(error.code == 8104)
                if case .api(let status, _, _, _) = error { #expect(status == 404) }
            }
        }
    }

    @Test func aBackgroundPushGoesWithItsTypeAndPriority() async throws {
        try await LiveRelay.with { relay in
            let backend = try await relay.makeApp()
            let hex = DeviceToken(Self.randomToken()).hex
            let rid = try await backend.registerDevice(token: hex, environment: .production)
            _ = try await backend.push(Push(audience: .registrationIDs(rid),
                                            notification: PushNotification(ios: IOSNotification(contentAvailable: true, pushType: .background)),
                                            options: PushOptions(apnsPriority: 5)))
            let delivery = try await poll("the delivery") { relay.simulator.deliveries(token: hex).first }
            #expect(delivery.pushType == "background")
            #expect(delivery.priority == "5")
        }
    }

    @Test func badCredentialsAndBadInputAreTypedErrors() async throws {
        try await LiveRelay.with { relay in
            let backend = try await relay.makeApp()
            let intruder = relay.client(backend, secret: "not-the-secret")
            let hi = Push(audience: .all, notification: PushNotification(alert: "hi"))

            try await expectCode(1004, status: 401) { _ = try await intruder.push(hi) }
            try await expectCode(7004, status: 401) { _ = try await intruder.tags() }
            try await expectCode(3001, status: 401) { _ = try await intruder.received(msgIDs: ["1"]) }
            try await expectCode(8101, status: 401) { _ = try await intruder.schedules() }

            try await expectCode(7002, status: 400) { _ = try await backend.registerDevice(token: "not-hex", environment: .sandbox) }
            try await expectCode(1003, status: 400) {
                _ = try await backend.push(Push(audience: .alias(String(repeating: "a", count: 41)), notification: PushNotification(alert: "hi")))
            }
            try await expectCode(3002, status: 400) { _ = try await backend.received(msgIDs: ["not-a-number"]) }
            // Nobody matches: refused, but with the msg_id JPush assigns.
            do {
                _ = try await backend.push(Push(audience: .alias("nobody"), notification: PushNotification(alert: "hi")))
                Issue.record("expected 1011")
            } catch let error as PushRelayError {
                #expect(error.code == 1011)
                if case .api(_, _, _, let msgID) = error { #expect(msgID != nil) }
            }
        }
    }

    @Test func theDeviceSideRegistersSyncsAndResetsTheBadgeThroughTheRelay() async throws {
        try await LiveRelay.with { relay in
            let backend = try await relay.makeApp()
            let badge = FakeBadge()
            let registrar = PushRegistrar(service: backend, environment: .production, setOSBadge: badge.setter())
            let token = Self.randomToken()
            let hex = DeviceToken(token).hex
            await registrar.didReceiveToken(token)
            let rid = try #require(await registrar.registrationID)
            try await registrar.setAlias("user_7")
            try await registrar.setTags(["traders"])
            #expect(try await backend.alias("user_7") == [rid])
            #expect(try await backend.device(rid).tags == ["traders"])

            // Two "+1" pushes: the relay counts the badge up…
            let plusOne = Push(audience: .alias("user_7"), notification: PushNotification(ios: IOSNotification(alert: "fill", badge: .add(1))))
            for expected in 1...2 {
                let sent = try await backend.push(plusOne)
                // Like JPush's reports: the message counts as sent once its outcome is in.
                try await poll("report of push \(expected)") {
                    try await backend.received(msgIDs: [sent.msgID]).first?.iosApnsSent == 1 ? true : nil
                }
                let delivery = try await poll("delivery \(expected)") { relay.simulator.deliveries(token: hex).first { $0.count == expected } }
                #expect(delivery.badge == expected, "\(delivery.json)")
            }
            // …the user opens the app, which clears the badge on the OS and in the relay…
            try await registrar.resetBadge()
            #expect(badge.set == [0])
            // …so the next "+1" shows 1, not 3.
            relay.simulator.reset()
            _ = try await backend.push(plusOne)
            let next = try await poll("the push after the reset") { relay.simulator.deliveries(token: hex).first }
            #expect(next.badge == 1)
        }
    }

    private func expectCode(_ code: Int, status: Int, _ body: () async throws -> Void) async throws {
        do {
            try await body()
            Issue.record("expected JPush code \(code)")
        } catch let error as PushRelayError {
            guard case .api(let gotStatus, let gotCode, let message, _) = error else {
                Issue.record("expected an API error, got \(error)")
                return
            }
            #expect(gotCode == code, "\(message)")
            #expect(gotStatus == status)
            #expect(!message.isEmpty)
        }
    }
}
