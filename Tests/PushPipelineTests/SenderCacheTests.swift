@testable import APNSClient
import FCMClient
import Foundation
@testable import PushPipeline
import Synchronization
import Testing

/// `SenderCache` with fake clients and the worker's clock skipped by hand: a client per app
/// and environment built once, kept while used, dropped after the idle time (never while a
/// send is under way), built again on the next send, replaced by a new credential's.
@Suite struct SenderCacheTests {
    /// Accepts everything; a send waits while `held` until `release`; counts shutdowns.
    final class FakeClient: NotificationSender {
        let shutDown = Atomic<Int>(0)
        private let gate = Mutex<(held: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func hold() { gate.withLock { $0.held = true } }
        func release() {
            let waiting = gate.withLock { gate in
                gate.held = false
                defer { gate.waiting = [] }
                return gate.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
        var waiting: Int { gate.withLock { $0.waiting.count } }

        func send(_ notifications: [APNSNotification], urgent: Bool) async -> [APNSResult] {
            await withCheckedContinuation { continuation in
                let held = gate.withLock { gate in
                    if gate.held { gate.waiting.append(continuation) }
                    return gate.held
                }
                if !held { continuation.resume() }
            }
            return notifications.map { _ in .accepted(apnsID: UUID()) }
        }

        func shutdown() async { shutDown.add(1, ordering: .relaxed) }
    }

    /// The clients made, in order.
    final class Factory: Sendable {
        let made = Mutex<[(version: String, client: FakeClient)]>([])
        var count: Int { made.withLock { $0.count } }
        func client(_ index: Int) -> FakeClient { made.withLock { $0[index].client } }

        func make(_ credential: AppCredential, _ environment: String) -> any NotificationSender {
            let client = FakeClient()
            made.withLock { $0.append((credential.version, client)) }
            return client
        }
    }

    static func credential(app: Int64 = 1, version: String = "v1") -> AppCredential {
        AppCredential(appID: app, appKey: "app\(app)", environment: "production", topic: "com.example.app", version: version,
                      isBroken: false, auth: "token", keyID: "KEY1234567", teamID: "TEAM123456", sealedSecret: [])
    }

    static let notification = APNSNotification(deviceToken: String(repeating: "ab", count: 32), topic: "com.example.app",
                                               payload: Array(#"{"aps":{}}"#.utf8))

    @Test func aClientIsBuiltOnceKeptWhileUsedAndDroppedWhenIdle() async throws {
        let clock = SkippingClock()
        let factory = Factory()
        let cache = SenderCache(idleAfter: .seconds(300), clock: clock, makeSender: { factory.make($0, $1) })
        let sender = try cache.sender(for: Self.credential(), environment: "production")
        _ = try cache.sender(for: Self.credential(), environment: "production")
        _ = try cache.sender(for: Self.credential(app: 2), environment: "production")
        #expect(factory.count == 2, "one per app")
        _ = await sender.send([Self.notification], urgent: false)

        try await clock.sleep(for: .seconds(299))
        #expect(cache.evictIdle() == 0)
        _ = await sender.send([Self.notification], urgent: false)  // used again: the idle time starts over
        try await clock.sleep(for: .seconds(299))
        #expect(cache.evictIdle() == 1, "app 2's client, unused for 598 s")
        try await clock.sleep(for: .seconds(1))
        #expect(cache.evictIdle() == 1 && cache.count == 0)
        try await poll(timeout: .seconds(5), "the dropped clients to shut down") {
            (factory.client(0).shutDown.load(ordering: .relaxed) == 1 && factory.client(1).shutDown.load(ordering: .relaxed) == 1) ? true : nil
        }

        // The chunk's sender still works: the next send builds the client again.
        #expect(await sender.send([Self.notification], urgent: false).count == 1)
        #expect(factory.count == 3 && cache.count == 1)
    }

    /// Accepts every FCM message; counts shutdowns; reports one open connection.
    final class FakeFCMClient: FCMSender {
        let shutDown = Atomic<Int>(0)
        var statistics: APNSClientStatistics? {
            var statistics = APNSClientStatistics()
            statistics.connectionsOpen = 1
            return statistics
        }

        func send(_ messages: [FCMMessage], urgent: Bool) async -> [FCMResult] {
            messages.map { _ in .accepted(name: "projects/p/messages/1") }
        }

        func shutdown() async { shutDown.add(1, ordering: .relaxed) }
    }

    static func fcmCredential(app: Int64 = 1, version: String = "v1") -> FCMCredential {
        FCMCredential(appID: app, appKey: "app\(app)", version: version, isBroken: false, sealedSecret: [])
    }

    @Test func anAppsFCMClientIsOneBesideItsAPNsClientsAndDroppedWhenIdleLikeThem() async throws {
        let clock = SkippingClock()
        let factory = Factory()
        let fcmClients = Mutex<[FakeFCMClient]>([])
        let cache = SenderCache(idleAfter: .seconds(300), clock: clock, makeSender: { factory.make($0, $1) }, makeFCMSender: { _ in
            let client = FakeFCMClient()
            fcmClients.withLock { $0.append(client) }
            return client
        })
        _ = try cache.sender(for: Self.credential(), environment: "production")
        let fcm = try cache.sender(for: Self.fcmCredential())
        _ = try cache.sender(for: Self.fcmCredential())
        #expect(fcmClients.withLock(\.count) == 1 && factory.count == 1 && cache.count == 2, "one FCM client per app and version")
        #expect(cache.statistics.apns.isEmpty, "the fake APNs clients keep no counters")
        #expect(cache.statistics.fcm.map(\.connectionsOpen) == [1], "the FCM client's counters apart from the APNs ones")
        #expect(await fcm.send([FCMMessage(token: "t", message: Array("{}".utf8))], urgent: true) == [.accepted(name: "projects/p/messages/1")])
        // A new service account: a new client, the old one dropped at once (nothing in flight).
        _ = try cache.sender(for: Self.fcmCredential(version: "v2"))
        #expect(fcmClients.withLock(\.count) == 2 && cache.count == 2)
        try await clock.sleep(for: .seconds(300))
        #expect(cache.evictIdle() == 2 && cache.count == 0)
        try await poll(timeout: .seconds(5), "the FCM clients to shut down") {
            fcmClients.withLock { $0.allSatisfy { $0.shutDown.load(ordering: .relaxed) == 1 } } ? true : nil
        }

        // A worker made without FCM clients: the credential makes none (its chunks pause, as for a bad key).
        let apnsOnly = SenderCache(idleAfter: .seconds(300), clock: clock, makeSender: { factory.make($0, $1) })
        #expect(throws: CredentialUnusable.self) { try apnsOnly.sender(for: Self.fcmCredential()) }
    }

    @Test func aClientIsNotDroppedWhileASendIsUnderWay() async throws {
        let clock = SkippingClock()
        let factory = Factory()
        let cache = SenderCache(idleAfter: .seconds(300), clock: clock, makeSender: { factory.make($0, $1) })
        let sender = try cache.sender(for: Self.credential(), environment: "production")
        factory.client(0).hold()
        async let answered = sender.send([Self.notification], urgent: false)
        try await poll(timeout: .seconds(5), "the send to reach the client") { factory.client(0).waiting == 1 ? true : nil }
        try await clock.sleep(for: .seconds(3600))
        #expect(cache.evictIdle() == 0, "in flight for an hour, not idle")
        factory.client(0).release()
        #expect(await answered.count == 1)
        // Idle from the answer on.
        #expect(cache.evictIdle() == 0)
        try await clock.sleep(for: .seconds(300))
        #expect(cache.evictIdle() == 1)
    }

    @Test func aNewCredentialGetsANewClientAndTheOldOneGoesOnceNothingIsInFlight() async throws {
        let factory = Factory()
        let cache = SenderCache(idleAfter: .seconds(300), clock: SkippingClock(), makeSender: { factory.make($0, $1) })
        let old = try cache.sender(for: Self.credential(version: "v1"), environment: "production")
        factory.client(0).hold()
        async let oldAnswered = old.send([Self.notification], urgent: false)
        try await poll(timeout: .seconds(5), "the old send to reach its client") { factory.client(0).waiting == 1 ? true : nil }
        let new = try cache.sender(for: Self.credential(version: "v2"), environment: "production")
        #expect(await new.send([Self.notification], urgent: false).count == 1)
        #expect(factory.count == 2 && factory.client(0).shutDown.load(ordering: .relaxed) == 0, "the old one still sends")
        factory.client(0).release()
        #expect(await oldAnswered.count == 1)
        #expect(cache.evictIdle() == 1 && cache.count == 1, "replaced and idle: dropped at once")
    }

    @Test func freeMemoryGoesBackAfterDroppedClientsShutDownAtMostOnceAMinuteAndNoWaveIsForgotten() async throws {
        let clock = SkippingClock()
        let factory = Factory()
        let releases = Atomic<Int>(0)
        // Each release must come after the dropped clients' shutdowns: it frees what they held.
        let shutDownAtRelease = Mutex<[Int]>([])
        let cache = SenderCache(idleAfter: .seconds(300), clock: clock, releaseMemory: {
            releases.add(1, ordering: .relaxed)
            shutDownAtRelease.withLock { $0.append((0..<factory.count).map { factory.client($0).shutDown.load(ordering: .relaxed) }.reduce(0, +)) }
        }, makeSender: { factory.make($0, $1) })
        _ = try cache.sender(for: Self.credential(app: 1), environment: "production")
        _ = try cache.sender(for: Self.credential(app: 2), environment: "production")
        #expect(cache.evictIdle() == 0)
        try await clock.sleep(for: .seconds(10))
        _ = try cache.sender(for: Self.credential(app: 2), environment: "production")  // app 2 used later
        try await clock.sleep(for: .seconds(290))
        #expect(cache.evictIdle() == 1)
        try await poll(timeout: .seconds(5), "the memory to be released") { releases.load(ordering: .relaxed) == 1 ? true : nil }
        #expect(shutDownAtRelease.withLock { $0 } == [1])

        try await clock.sleep(for: .seconds(10))
        #expect(cache.evictIdle() == 1, "app 2's client, 10 s after app 1's")
        try await poll(timeout: .seconds(5), "its shutdown") { factory.client(1).shutDown.load(ordering: .relaxed) == 1 ? true : nil }
        #expect(releases.load(ordering: .relaxed) == 1, "not again within the minute")
        try await clock.sleep(for: .seconds(49))
        #expect(cache.evictIdle() == 0 && releases.load(ordering: .relaxed) == 1)
        try await clock.sleep(for: .seconds(1))
        #expect(cache.evictIdle() == 0, "nothing more to drop, but app 2's wave is still owed its release")
        try await poll(timeout: .seconds(5), "the release held back") { releases.load(ordering: .relaxed) == 2 ? true : nil }
        try await clock.sleep(for: .seconds(600))
        #expect(cache.evictIdle() == 0)
        try await Task.sleep(for: .milliseconds(50))
        #expect(releases.load(ordering: .relaxed) == 2, "nothing dropped since: nothing to release")
    }
}
