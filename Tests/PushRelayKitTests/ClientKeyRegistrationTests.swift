import Foundation
@testable import PushRelayKit
import Testing

/// Client-key registration under `PushRegistrar`, against a scripted relay: the wire shapes,
/// token rotation, a lost secret, retries, and what a client key may not do.
@Suite struct ClientKeyRegistrationTests {
    let tokenA = Data((0..<32).map { UInt8($0) })
    let tokenB = Data((0..<32).map { UInt8(255 - $0) })
    var hexA: String { DeviceToken(tokenA).hex }
    var hexB: String { DeviceToken(tokenB).hex }

    static func registered(_ rid: String, _ secret: String) -> ScriptedTransport.Answer {
        .reply(200, #"{"registration_id":"\#(rid)","device_secret":"\#(secret)"}"#)
    }

    static let ok = ScriptedTransport.Answer.reply(200, "")

    func service(_ transport: ScriptedTransport, store: InMemoryCredentialStore) -> ClientKeyRegistration {
        ClientKeyRegistration(client: PushRelayDeviceClient(baseURL: URL(string: "http://relay.test/")!, clientKey: "ck_k1_public", transport: transport),
                              store: store)
    }

    func registrar(_ service: ClientKeyRegistration, sleeper: ManualSleeper = ManualSleeper(),
                   records: InMemoryRegistrationStore = InMemoryRegistrationStore()) -> PushRegistrar {
        PushRegistrar(service: service, environment: .production, store: records,
                      backoff: Backoff(initial: .seconds(2), jitter: 0), sleeper: sleeper, random: { 0 }, setOSBadge: FakeBadge().setter())
    }

    @Test func registersWithTheClientKeyAndKeepsTheSecret() async throws {
        let transport = ScriptedTransport([Self.registered("rid1", "secret1")])
        let store = InMemoryCredentialStore()
        let registrar = registrar(service(transport, store: store))
        await registrar.didReceiveToken(tokenA)
        #expect(await registrar.state == .registered(registrationID: "rid1"))

        let sent = try #require(transport.sent.first)
        #expect(sent.method == "POST" && sent.url == "http://relay.test/client/v1/devices")
        #expect(sent.headers["Authorization"] == "Bearer ck_k1_public")
        #expect(NSDictionary(dictionary: sent.json) == NSDictionary(dictionary: ["platform": "ios", "token": hexA, "environment": "production"]))
        let held = try #require(store.load())
        #expect(held == DeviceCredentials(registrationID: "rid1", deviceSecret: "secret1", token: hexA, environment: .production))
        #expect(!String(describing: held).contains("secret1"), "credentials may end up in logs")
    }

    @Test func aNewTokenMovesTheRegistrationWithTheDeviceSecret() async throws {
        let transport = ScriptedTransport([Self.registered("rid1", "secret1"), Self.ok])
        let store = InMemoryCredentialStore()
        let registrar = registrar(service(transport, store: store))
        await registrar.didReceiveToken(tokenA)
        await registrar.didReceiveToken(tokenB)
        #expect(await registrar.registrationID == "rid1", "the id (and the backend's alias on it) stays")

        let patch = try #require(transport.sent.last)
        #expect(patch.method == "PATCH" && patch.url == "http://relay.test/client/v1/devices/rid1")
        #expect(patch.headers["Authorization"] == "Bearer secret1")
        #expect(NSDictionary(dictionary: patch.json) == NSDictionary(dictionary: ["token": hexB]))
        #expect(store.load()?.token == hexB)
        #expect(store.load()?.deviceSecret == "secret1")
    }

    @Test(arguments: [
        (401, #"{"error":{"code":7004,"message":"device secret required"}}"#),
        (403, #"{"error":{"code":7004,"message":"not this device"}}"#),
        (400, #"{"error":{"code":7002,"message":"token belongs to another device"}}"#),
    ])
    func aRefusedMoveRegistersAnew(status: Int, body: String) async throws {
        let transport = ScriptedTransport([Self.registered("rid1", "secret1"), .reply(status, body), Self.registered("rid2", "secret2")])
        let store = InMemoryCredentialStore()
        let registrar = registrar(service(transport, store: store))
        await registrar.didReceiveToken(tokenA)
        await registrar.didReceiveToken(tokenB)
        #expect(await registrar.state == .registered(registrationID: "rid2"))
        #expect(transport.sent.map(\.method) == ["POST", "PATCH", "POST"])
        #expect(transport.sent.last?.headers["Authorization"] == "Bearer ck_k1_public")
        #expect(transport.sent.last?.json["token"] as? String == hexB)
        #expect(store.load() == DeviceCredentials(registrationID: "rid2", deviceSecret: "secret2", token: hexB, environment: .production))
    }

    @Test func aMoveThatFailsForNowIsRetriedWithBackoff() async throws {
        let transport = ScriptedTransport([Self.registered("rid1", "secret1"), .offline, .reply(503, #"{"error":{"code":7030,"message":"busy"}}"#), Self.ok])
        let sleeper = ManualSleeper()
        let registrar = registrar(service(transport, store: InMemoryCredentialStore()), sleeper: sleeper)
        await registrar.didReceiveToken(tokenA)
        await registrar.didReceiveToken(tokenB)
        #expect(await registrar.state == .waitingToRetry(attempt: 2, delay: .seconds(2)))
        try await sleeper.fire(.seconds(2))
        try await sleeper.fire(.seconds(4))
        try await poll("registered") { await registrar.state == .registered(registrationID: "rid1") ? true : nil }
        #expect(transport.sent.map(\.method) == ["POST", "PATCH", "PATCH", "PATCH"])
    }

    @Test func theSameTokenAfterARelaunchCostsNothing() async throws {
        let transport = ScriptedTransport([Self.registered("rid1", "secret1")])
        let store = InMemoryCredentialStore()
        let records = InMemoryRegistrationStore()
        await registrar(service(transport, store: store), records: records).didReceiveToken(tokenA)
        // The registrar's record lost (an app that keeps none), the credentials kept: still no request.
        let relaunched = registrar(service(transport, store: store))
        await relaunched.didReceiveToken(tokenA)
        #expect(await relaunched.registrationID == "rid1")
        #expect(transport.sent.count == 1)
    }

    @Test func aRevokedClientKeyIsNotRetried() async throws {
        let transport = ScriptedTransport([.reply(401, #"{"error":{"code":7004,"message":"unknown client key"}}"#)])
        let sleeper = ManualSleeper()
        let registrar = registrar(service(transport, store: InMemoryCredentialStore()), sleeper: sleeper)
        await registrar.didReceiveToken(tokenA)
        guard case .failed = await registrar.state else {
            Issue.record("expected failed, got \(await registrar.state)")
            return
        }
        #expect(sleeper.requested.isEmpty)
    }

    @Test func theBadgeIsTheBackendsAliasAndTagsTooUnlessTheAppAllows() async throws {
        let refused = ScriptedTransport.Answer.reply(400, #"{"error":{"code":7002,"message":"alias cannot be set from a device unless the app allows it (client_may_set_alias)"}}"#)
        let transport = ScriptedTransport([Self.registered("rid1", "secret1"), refused, Self.ok])
        let registrar = registrar(service(transport, store: InMemoryCredentialStore()))
        await registrar.didReceiveToken(tokenA)
        await #expect(throws: PushRelayError.self) { try await registrar.setAlias("user_42") }
        #expect(transport.sent.count == 2, "the relay decides (client_may_set_alias)")
        // The app allows it: the difference goes with the device secret.
        try await registrar.setTags(["vip"])
        let patch = try #require(transport.sent.last)
        #expect(patch.method == "PATCH" && patch.headers["Authorization"] == "Bearer secret1")
        #expect(NSDictionary(dictionary: patch.json) == NSDictionary(dictionary: ["alias": "user_42", "tags": ["add": ["vip"]]]))
        // The relay's badge: never from the device, nothing sent.
        do {
            try await registrar.resetBadge()
            Issue.record("expected notAllowed")
        } catch {
            guard case .notAllowed = error as? PushRelayError else { throw error }
        }
        #expect(transport.sent.count == 3)
        #expect(!PushRelayError.notAllowed("x").isTransient)
    }

    @Test func anAliasSetBeforeRegistrationFollowsItInASecondRequest() async throws {
        let transport = ScriptedTransport([Self.registered("rid1", "secret1"), Self.ok])
        let registrar = registrar(service(transport, store: InMemoryCredentialStore()))
        try await registrar.setAlias("user_42")
        await registrar.didReceiveToken(tokenA)
        #expect(await registrar.state == .registered(registrationID: "rid1"))
        #expect(transport.sent.map(\.method) == ["POST", "PATCH"])
        #expect(transport.sent[0].json["alias"] == nil, "a registration never carries labels")
        #expect(NSDictionary(dictionary: transport.sent[1].json) == NSDictionary(dictionary: ["alias": "user_42"]))
    }

    @Test func renewingTheSecretRegistersTheHeldTokenAgain() async throws {
        let transport = ScriptedTransport([Self.registered("rid1", "secret1"), Self.registered("rid1", "secret2")])
        let store = InMemoryCredentialStore()
        let service = service(transport, store: store)
        #expect(try await service.renewSecret() == nil, "nothing held, nothing to renew")
        _ = try await service.register(token: hexA, environment: .sandbox, alias: nil, tags: [])
        #expect(try await service.renewSecret()?.deviceSecret == "secret2")
        #expect(transport.sent.last?.json["token"] as? String == hexA)
        #expect(transport.sent.last?.json["environment"] as? String == "sandbox")
        #expect(store.load()?.deviceSecret == "secret2")
    }

    @Test func thePlanFollowsWhatIsHeld() {
        let held = DeviceCredentials(registrationID: "r", deviceSecret: "s", token: "aa", environment: .sandbox)
        #expect(ClientRegistrationStep.plan(held: nil, token: "aa", environment: .sandbox) == .register)
        #expect(ClientRegistrationStep.plan(held: held, token: "aa", environment: .sandbox) == .upToDate(held))
        #expect(ClientRegistrationStep.plan(held: held, token: "bb", environment: .sandbox) == .update(held, token: "bb", environment: nil))
        #expect(ClientRegistrationStep.plan(held: held, token: "aa", environment: .production) == .update(held, token: nil, environment: .production))
        #expect(ClientRegistrationStep.registersAfterFailedUpdate(.api(status: 403, code: 7004, message: "", msgID: nil)))
        #expect(!ClientRegistrationStep.registersAfterFailedUpdate(.api(status: 429, code: 2002, message: "", msgID: nil)))
        #expect(!ClientRegistrationStep.registersAfterFailedUpdate(.transport("offline")))
    }
}
