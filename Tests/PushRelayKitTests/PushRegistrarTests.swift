import Foundation
import PushRelayKit
import Testing

/// The registration flow against a fake relay and a hand-driven clock: no network, no sleeping.
@Suite struct PushRegistrarTests {
    let tokenA = Data((0..<32).map { UInt8($0) })
    let tokenB = Data((0..<32).map { UInt8(255 - $0) })
    let backoff = Backoff(initial: .seconds(2), multiplier: 2, maximum: .seconds(60), jitter: 0.5)

    func registrar(_ service: FakeRegistrationService, store: InMemoryRegistrationStore = InMemoryRegistrationStore(),
                   sleeper: ManualSleeper = ManualSleeper(), badge: FakeBadge = FakeBadge(),
                   environment: APNsEnvironment = APNsEnvironment.choose(provisioningProfile: nil, debugBuild: true)) -> PushRegistrar {
        PushRegistrar(service: service, environment: environment, store: store, backoff: backoff, sleeper: sleeper,
                      random: { 0 }, setOSBadge: badge.setter())
    }

    @Test func registersTheHexTokenInTheBuildsEnvironmentOnce() async throws {
        let service = FakeRegistrationService()
        let store = InMemoryRegistrationStore()
        let registrar = registrar(service, store: store)
        await registrar.didReceiveToken(tokenA)
        #expect(await registrar.state == .registered(registrationID: "rid-1"))
        #expect(service.registrations == [.init(token: DeviceToken(tokenA).hex, environment: .sandbox, alias: nil, tags: [])])
        // The same token again (every launch) costs nothing.
        await registrar.didReceiveToken(tokenA)
        #expect(service.registrations.count == 1)
        // Nor after a relaunch: the record survived in the store.
        let relaunched = self.registrar(service, store: store)
        #expect(await relaunched.registrationID == "rid-1")
        await relaunched.didReceiveToken(tokenA)
        #expect(service.registrations.count == 1)
    }

    @Test func aChangedTokenIsRegisteredAgain() async throws {
        let service = FakeRegistrationService()
        let store = InMemoryRegistrationStore()
        let registrar = registrar(service, store: store)
        await registrar.didReceiveToken(tokenA)
        await registrar.didReceiveToken(tokenB)
        #expect(service.registrations.map(\.token) == [DeviceToken(tokenA).hex, DeviceToken(tokenB).hex])
        #expect(await registrar.registrationID == "rid-2")
        #expect(store.load()?.token == DeviceToken(tokenB).hex)
    }

    @Test func aReleaseBuildRegistersForProduction() async throws {
        let service = FakeRegistrationService()
        let registrar = registrar(service, environment: APNsEnvironment.choose(provisioningProfile: nil, debugBuild: false))
        await registrar.didReceiveToken(tokenA)
        #expect(service.registrations.first?.environment == .production)
    }

    @Test func offlineRegistrationIsRetriedWithGrowingBackoffUntilItSucceeds() async throws {
        let service = FakeRegistrationService()
        service.failNextRegistrations([URLError(.notConnectedToInternet), PushRelayError.api(status: 503, code: 7030, message: "busy", msgID: nil)])
        let sleeper = ManualSleeper()
        let registrar = registrar(service, sleeper: sleeper)

        await registrar.didReceiveToken(tokenA)
        #expect(await registrar.state == .waitingToRetry(attempt: 2, delay: .seconds(2)))
        try await sleeper.waitForSleepers()
        #expect(service.registrations.count == 1, "nothing is retried before the clock says so")

        sleeper.fireNext()
        try await sleeper.waitForSleepers()
        #expect(await registrar.state == .waitingToRetry(attempt: 3, delay: .seconds(4)))
        #expect(service.registrations.count == 2)

        sleeper.fireNext()
        try await poll("registration") { await registrar.registrationID }
        #expect(sleeper.requested == [.seconds(2), .seconds(4)])
        #expect(service.registrations.count == 3)
        #expect(Set(service.registrations.map(\.token)) == [DeviceToken(tokenA).hex])
    }

    @Test func aNewTokenWhileWaitingToRetryReplacesTheOldAttempt() async throws {
        let service = FakeRegistrationService()
        service.failNextRegistrations([URLError(.timedOut)])
        let sleeper = ManualSleeper()
        let registrar = registrar(service, sleeper: sleeper)
        await registrar.didReceiveToken(tokenA)
        try await sleeper.waitForSleepers()
        await registrar.didReceiveToken(tokenB)
        #expect(await registrar.registrationID == "rid-1")
        // The old retry was cancelled: its sleep ended and it registered nothing.
        try await poll("the old sleep to end") { sleeper.waitingCount == 0 ? true : nil }
        #expect(service.registrations.map(\.token) == [DeviceToken(tokenA).hex, DeviceToken(tokenB).hex])
    }

    @Test func aRefusalIsNotRetried() async throws {
        let service = FakeRegistrationService()
        service.failNextRegistrations([PushRelayError.api(status: 401, code: 7004, message: "auth failed", msgID: nil)])
        let sleeper = ManualSleeper()
        let registrar = registrar(service, sleeper: sleeper)
        await registrar.didReceiveToken(tokenA)
        guard case .failed = await registrar.state else {
            Issue.record("expected failed, got \(await registrar.state)")
            return
        }
        #expect(sleeper.requested.isEmpty)
        // A new token tries again.
        await registrar.didReceiveToken(tokenB)
        #expect(await registrar.registrationID == "rid-1")
    }

    @Test func aliasAndTagsRideOnTheRegistrationThenSyncAsDifferences() async throws {
        let service = FakeRegistrationService()
        let registrar = registrar(service)
        try await registrar.setAlias("user_42")
        try await registrar.setTags(["vip", "eu"])
        #expect(service.updates.isEmpty, "nothing to update before there is a registration")
        await registrar.didReceiveToken(tokenA)
        #expect(service.registrations.first?.alias == "user_42")
        #expect(service.registrations.first?.tags == ["eu", "vip"])

        try await registrar.setTags(["vip", "us"])
        try await registrar.setTags(["vip", "us"])
        try await registrar.setAlias(nil)
        let updates = service.updates
        #expect(updates.count == 2, "an unchanged set sends nothing")
        #expect(updates.first?.0 == "rid-1")
        #expect(updates.first?.1 == DeviceUpdate(addTags: ["us"], removeTags: ["eu"]))
        #expect(updates.last?.1 == DeviceUpdate(alias: ""))
    }

    @Test func resetBadgeClearsTheOSAndTheRelay() async throws {
        let service = FakeRegistrationService()
        let badge = FakeBadge()
        let registrar = registrar(service, badge: badge)
        // Before registration only the OS is cleared; the relay hears of it once registered.
        try await registrar.resetBadge()
        #expect(badge.set == [0])
        #expect(service.updates.isEmpty)
        await registrar.didReceiveToken(tokenA)
        #expect(service.updates.map(\.1) == [DeviceUpdate(badge: 0)])

        try await registrar.resetBadge()
        #expect(badge.set == [0, 0])
        #expect(service.updates.map(\.0) == ["rid-1", "rid-1"])
        #expect(service.updates.map(\.1) == [DeviceUpdate(badge: 0), DeviceUpdate(badge: 0)])
    }
}
