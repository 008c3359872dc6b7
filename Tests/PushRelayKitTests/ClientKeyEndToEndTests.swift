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

            // A client key registers and nothing else: the master-secret routes refuse it.
            let intruder = PushRelayClient(baseURL: relay.baseURL, appKey: backend.appKey, masterSecret: clientKey, maxAttempts: 1)
            await #expect(throws: PushRelayError.self) { _ = try await intruder.push(alert) }
        }
    }
}
