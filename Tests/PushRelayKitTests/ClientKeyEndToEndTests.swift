import APNSSimulator
import Foundation
import PushRelayKit
import Testing

/// The app registering itself with a client key, against a real relay in this process
/// (API, worker, PostgreSQL) sending to the APNs simulator: no backend proxy, no master secret
/// on the phone, and the backend's alias follows the registration across token changes.
@Suite(.serialized) struct ClientKeyEndToEndTests {
    @Test func anAppRegistersItselfAndKeepsItsRegistrationAcrossTokens() async throws {
        try await LiveRelay.with { relay in
            let backend = try await relay.makeApp()
            let clientKey = try await relay.makeClientKey(backend)
            let client = PushRelayDeviceClient(baseURL: relay.baseURL, clientKey: clientKey)
            let credentials = InMemoryCredentialStore()
            let registration = ClientKeyRegistration(client: client, store: credentials)
            let registrar = PushRegistrar(service: registration, environment: .production, setOSBadge: FakeBadge().setter())

            let first = EndToEndTests.randomToken()
            await registrar.didReceiveToken(first)
            let state = await registrar.state
            let rid = try #require(await registrar.registrationID, "\(state)")
            // The backend attaches the user it authenticated to the registration the app reports.
            try await backend.updateDevice(rid, DeviceUpdate(alias: "user_9"))
            let alert = Push(audience: .alias("user_9"), notification: PushNotification(alert: "Trade filled"))
            _ = try await backend.push(alert)
            _ = try await poll("the first token's delivery") { relay.simulator.deliveries(token: DeviceToken(first).hex).first }

            // APNs hands out a new token: the registration moves, the alias stays with it.
            let second = EndToEndTests.randomToken()
            await registrar.didReceiveToken(second)
            #expect(await registrar.registrationID == rid)
            #expect(try await backend.device(rid).alias == "user_9")
            _ = try await backend.push(alert)
            _ = try await poll("the second token's delivery") { relay.simulator.deliveries(token: DeviceToken(second).hex).first }

            // The secret is lost (a restored backup without the Keychain item's value): the next
            // token change registers anew with the client key.
            var held = try #require(credentials.load())
            held.deviceSecret = "lost"
            credentials.save(held)
            let third = EndToEndTests.randomToken()
            await registrar.didReceiveToken(third)
            let renewed = try #require(credentials.load())
            #expect(renewed.token == DeviceToken(third).hex && renewed.deviceSecret != "lost")
            #expect(await registrar.state == .registered(registrationID: renewed.registrationID))

            // The device sets its own alias only when the app allows it.
            await #expect(throws: PushRelayError.self) { try await registrar.setAlias("user_10") }
            try await relay.allowClientLabels(backend)
            try await registrar.setAlias("user_10")
            #expect(try await backend.alias("user_10") == [renewed.registrationID])

            // A client key registers and nothing else: the master-secret routes refuse it.
            let intruder = PushRelayClient(baseURL: relay.baseURL, appKey: backend.appKey, masterSecret: clientKey, maxAttempts: 1)
            await #expect(throws: PushRelayError.self) { _ = try await intruder.push(alert) }
        }
    }

    @Test func receiptsFromTheExtensionAndATapReachTheReports() async throws {
        try await LiveRelay.with { relay in
            let backend = try await relay.makeApp()
            let client = PushRelayDeviceClient(baseURL: relay.baseURL, clientKey: try await relay.makeClientKey(backend))
            let registration = ClientKeyRegistration(client: client, store: InMemoryCredentialStore())
            let hex = DeviceToken(EndToEndTests.randomToken()).hex
            let rid = try await registration.register(token: hex, environment: .production, alias: nil, tags: [])
            let push = Push(audience: .registrationIDs(rid), notification: PushNotification(ios: IOSNotification(
                alert: "Trade filled", mutableContent: true, extras: ["route": "trade"])))
            let result = try await backend.push(push)
            let delivery = try await poll("the delivery") { relay.simulator.deliveries(token: hex).first }

            // The extension and the app: two processes, one queue file.
            let queue = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-\(UUID().uuidString).json")
            defer {
                try? FileManager.default.removeItem(at: queue)
                try? FileManager.default.removeItem(atPath: queue.path + ".lock")
            }
            let nse = PushRelayReceipts(registration: registration, store: FileReceiptQueueStore(url: queue))
            #expect(await nse.didReceive(delivery.json) == .sent, "userInfo is the payload APNs delivered")
            let app = PushRelayReceipts(registration: registration, store: FileReceiptQueueStore(url: queue))
            let router = NotificationRouter<String>()
            router.route("trade", to: "TradeDetail")
            router.reportOpens(to: app)
            router.handleTap(try NotificationPayload(json: Data(delivery.payload)))

            let report = try await poll("received in the report") {
                try await backend.received(msgIDs: [result.msgID]).first.flatMap { $0.iosApnsReceived == 1 ? $0 : nil }
            }
            #expect(report.iosApnsSent == 1)
            try await poll("the click in the details") { () async throws -> Bool? in
                guard case .array(let details) = try await backend.messageDetails(msgIDs: [result.msgID]),
                      let apns = details.first?["details"]?["notification"]?["sub_ios"]?["apns"] else { return nil }
                return apns["click"] == .int(1) ? true : nil
            }
            // Reported again (the extension ran twice): counted once.
            #expect(await nse.report(.received, msgID: result.msgID) == .sent)
            #expect(try await backend.received(msgIDs: [result.msgID]).first?.iosApnsReceived == 1)
        }
    }

    /// The phone's VoIP and location tokens through `PushTokenReporter` (the device secret's
    /// `PATCH /client/v1/devices/{rid}`): a push of each type reaches its token, once reported.
    @Test func tokensOfOtherKindsReachTheirPushes() async throws {
        try await LiveRelay.with { relay in
            let backend = try await relay.makeApp()
            let client = PushRelayDeviceClient(baseURL: relay.baseURL, clientKey: try await relay.makeClientKey(backend))
            let registration = ClientKeyRegistration(client: client, store: InMemoryCredentialStore())
            let rid = try await registration.register(token: DeviceToken(EndToEndTests.randomToken()).hex, environment: .production,
                                                      alias: nil, tags: [])
            let reporter = PushTokenReporter(registration: registration)
            for type in [IOSNotification.PushType.voip, .location] {
                let token = EndToEndTests.randomToken()
                #expect(await reporter.report(PushTokenType(rawValue: type.rawValue)!, token: token))
                _ = try await backend.push(Push(audience: .registrationIDs(rid), notification: PushNotification(
                    ios: IOSNotification(pushType: type, extras: ["k": "v"]))))
                let delivery = try await poll("the \(type) delivery") { relay.simulator.deliveries(token: DeviceToken(token).hex).first }
                #expect(delivery.pushType == type.rawValue)
                #expect(delivery.json["k"] as? String == "v")
            }
            // Reported again (a relaunch): nothing is sent.
            #expect(await reporter.outbox.pending.isEmpty)
        }
    }
}
