import Foundation
import PushRelayKit
import Testing

/// The token reports on the wire, against a scripted relay and a hand-driven clock: each
/// request's method, path, secret and body (the routes of issue 29), and retrying, renewing
/// and waiting for the registration. Not against a live relay: the Live Activity routes are
/// not on this branch's relay yet (docs/pushrelaykit.md).
@Suite struct PushTokenReporterTests {
    static let credentials = DeviceCredentials(registrationID: "rid1", deviceSecret: "secret1", token: "aa01", environment: .production)

    struct Phone {
        let transport: ScriptedTransport
        let sleeper = ManualSleeper()
        let credentials: InMemoryCredentialStore
        let reporter: PushTokenReporter

        init(_ answers: [ScriptedTransport.Answer], registered: Bool = true) {
            transport = ScriptedTransport(answers)
            credentials = InMemoryCredentialStore(registered ? PushTokenReporterTests.credentials : nil)
            let client = PushRelayDeviceClient(baseURL: URL(string: "http://relay.test")!, clientKey: "ck_k1_public", transport: transport)
            reporter = PushTokenReporter(registration: ClientKeyRegistration(client: client, store: credentials),
                                         backoff: Backoff(initial: .seconds(2), jitter: 0), sleeper: sleeper, random: { 0 })
        }
    }

    static let ok = ScriptedTransport.Answer.reply(200, "{}")

    @Test func eachReportHasItsRequest() async throws {
        let phone = Phone(Array(repeating: Self.ok, count: 4))
        let reports: [TokenReport] = [
            .startToken(attributesType: "DeliveryAttributes", token: "aa01"),
            .activityToken(activityID: "act 1", token: "bb02"),
            .activityState(activityID: "act 1", state: .ended),
            .deviceToken(.voip, token: "cc03"),
        ]
        for report in reports { #expect(await phone.reporter.report(report)) }
        let sent = phone.transport.sent
        #expect(sent.map(\.method) == ["POST", "POST", "PUT", "PATCH"])
        #expect(sent.map(\.url) == [
            "http://relay.test/client/v1/live-activities/start-tokens",
            "http://relay.test/client/v1/live-activities/act%201/tokens",
            "http://relay.test/client/v1/live-activities/act%201/state",
            "http://relay.test/client/v1/devices/rid1",
        ])
        #expect(sent.allSatisfy { $0.headers["Authorization"] == "Bearer secret1" && $0.headers["Content-Type"] == "application/json" })
        let bodies: [[String: String]] = sent.map { ($0.json as? [String: String]) ?? [:] }
        #expect(bodies == [
            ["registration_id": "rid1", "attributes_type": "DeliveryAttributes", "token": "aa01"],
            ["registration_id": "rid1", "token": "bb02"],
            ["registration_id": "rid1", "state": "ended"],
            ["token_type": "voip", "token": "cc03"],
        ])
    }

    @Test func everyKindOfTokenGoesByItsTokenType() async throws {
        let phone = Phone(Array(repeating: Self.ok, count: PushTokenType.allCases.count))
        for type in PushTokenType.allCases { await phone.reporter.report(type, token: Data([0xAB, 0x01])) }
        #expect(phone.transport.sent.map { $0.json["token_type"] as? String } == ["voip", "location", "complication", "fileprovider", "pushtotalk"])
        #expect(phone.transport.sent.allSatisfy { $0.json["token"] as? String == "ab01" })
    }

    @Test func offlineReportsWaitForTheBackoffAndGoInOrder() async throws {
        let phone = Phone([.offline])
        #expect(!(await phone.reporter.report(.activityToken(activityID: "A", token: "t1"))))
        #expect(!(await phone.reporter.report(.activityState(activityID: "A", state: .active))), "queued behind the first")
        // The second failure moved the retry later: 2 s, then 4 s.
        phone.transport.answer([Self.ok, Self.ok])
        try await phone.sleeper.fire(.seconds(4))
        try await poll("both sent") { phone.transport.sent.count == 4 ? true : nil }
        #expect(phone.transport.sent.suffix(2).map(\.url) == [
            "http://relay.test/client/v1/live-activities/A/tokens", "http://relay.test/client/v1/live-activities/A/state",
        ])
        #expect(await phone.reporter.outbox.pending.isEmpty)
        // The same token again (a relaunch) sends nothing.
        #expect(await phone.reporter.report(.activityToken(activityID: "A", token: "t1")))
        #expect(phone.transport.sent.count == 4)
    }

    @Test func nothingGoesBeforeTheDeviceIsRegistered() async throws {
        let phone = Phone([Self.ok], registered: false)
        #expect(!(await phone.reporter.report(.deviceToken(.pushtotalk, token: "dd04"))))
        #expect(phone.transport.sent.isEmpty)
        phone.credentials.save(Self.credentials)
        #expect(await phone.reporter.flush())
        #expect(phone.transport.sent.map(\.url) == ["http://relay.test/client/v1/devices/rid1"])
    }

    @Test func aRefusedSecretIsRenewedOnceThenTheReportGoesAgain() async throws {
        let renewed = ScriptedTransport.Answer.reply(200, #"{"registration_id":"rid1","device_secret":"secret2"}"#)
        let phone = Phone([.reply(401, #"{"error":{"code":1004,"message":"bad secret"}}"#), renewed, Self.ok])
        #expect(await phone.reporter.report(.startToken(attributesType: "T", token: "aa01")))
        let sent = phone.transport.sent
        #expect(sent.map(\.url) == [
            "http://relay.test/client/v1/live-activities/start-tokens", "http://relay.test/client/v1/devices",
            "http://relay.test/client/v1/live-activities/start-tokens",
        ])
        #expect(sent.last?.headers["Authorization"] == "Bearer secret2")
    }

    @Test func aReportTheRelayRefusesIsDropped() async throws {
        let phone = Phone([.reply(404, #"{"error":{"code":1011,"message":"no such activity"}}"#), Self.ok])
        #expect(await phone.reporter.report(.activityState(activityID: "gone", state: .active)), "dropped: nothing left queued")
        #expect(await phone.reporter.report(.deviceToken(.location, token: "ee05")))
        #expect(phone.transport.sent.count == 2)
        #expect(phone.sleeper.waitingCount == 0, "nothing to retry")
    }
}
