import APNSClient
import CSystem
import FCMClient
import Foundation
import Synchronization

/// One APNs client per (app, environment) and one FCM client per app (its service account,
/// whose OAuth2 access token the client keeps: one token per process and account, reused by
/// every chunk of a broadcast) while the app has work: built on first use,
/// built anew when the app's credential changes (its `version`; the replaced client is shut
/// down once the sends under way through it are answered), and dropped once nothing was
/// sent through it for `idleAfter` (its connections have closed by then), so an idle app
/// costs the worker nothing.
///
/// A chunk holds a `CachedSender`, not the client: each send takes the current client (built
/// again should it have been dropped meanwhile), and a client is never dropped while a send
/// is under way. Clients are built outside the lock; two chunks of one app racing to build
/// keep the first one stored (building is cheap: the credential's key and TLS context are
/// shared, `APNSClientResources`, and connections open only on a first send).
///
/// Once dropped clients are shut down, the memory malloc holds free goes back to the kernel,
/// as `MemoryReleaseSchedule` decides.
final class SenderCache: Sendable {
    fileprivate struct Key: Hashable {
        var appID: Int64
        /// `sandbox` or `production` (APNs), or `fcm`.
        var environment: String
        /// A chunk still sending with the replaced credential keeps its client.
        var version: String
    }

    /// A client of either service.
    fileprivate enum Client: Sendable {
        case apns(any NotificationSender)
        case fcm(any FCMSender)

        func shutdown() async {
            switch self {
            case .apns(let sender): await sender.shutdown()
            case .fcm(let sender): await sender.shutdown()
            }
        }

        /// The client's counters (the metrics of its connections).
        var statistics: APNSClientStatistics? {
            switch self {
            case .apns(let sender): sender.statistics
            case .fcm(let sender): sender.statistics
            }
        }
    }

    private struct Entry {
        var sender: Client
        /// A newer credential's client was built: dropped once nothing is in flight.
        var superseded = false
        /// Tells this client from a later one of the same key, for `release`.
        var generation: Int
        /// Sends under way through it.
        var inFlight = 0
        var lastUsed: ContinuousClock.Instant
    }

    /// Builds the client of a credential in an environment (`APNSClientSender.make`; a fake in tests).
    ///
    /// - Throws: when the credential cannot make a client (bad key or certificate).
    typealias MakeSender = @Sendable (_ credential: AppCredential, _ environment: String) throws -> any NotificationSender
    /// Builds the FCM client of a service account (`FCMClientSender.make`; a fake in tests).
    ///
    /// - Throws: when the credential cannot make a client (a key file that does not open or parse).
    typealias MakeFCMSender = @Sendable (_ credential: FCMCredential) throws -> any FCMSender
    /// Gives free memory back to the kernel (malloc_trim; a counter in tests).
    typealias ReleaseMemory = @Sendable () -> Void
    static let releaseMemoryInterval: Duration = .seconds(60)

    private let makeSender: MakeSender
    /// nil: a worker without FCM clients (tests of APNs alone).
    private let makeFCMSender: MakeFCMSender?
    private let releaseMemory: ReleaseMemory
    private let idleAfter: Duration
    private let clock: any PipelineClock
    private let entries = Mutex<[Key: Entry]>([:])
    private let generations = Atomic<Int>(0)
    private let memoryRelease = Mutex(MemoryReleaseSchedule(interval: SenderCache.releaseMemoryInterval))

    /// - Parameters:
    ///   - idleAfter: how long a client with nothing sent through it is kept.
    ///   - clock: the instants of last use.
    init(idleAfter: Duration = .seconds(300), clock: any PipelineClock = SystemClock(),
         releaseMemory: @escaping ReleaseMemory = { _ = CSystem_release_free_memory() }, makeSender: @escaping MakeSender,
         makeFCMSender: MakeFCMSender? = nil) {
        self.idleAfter = idleAfter
        self.clock = clock
        self.releaseMemory = releaseMemory
        self.makeSender = makeSender
        self.makeFCMSender = makeFCMSender
    }

    /// The sender for the app's credential in this environment; its client is built now if
    /// none is alive.
    ///
    /// - Throws: when the credential cannot make a client (bad key or certificate).
    func sender(for credential: AppCredential, environment: String) throws -> any NotificationSender {
        let way = CachedSender(cache: self, key: Key(appID: credential.appID, environment: environment, version: credential.version),
                               build: { [makeSender] in .apns(try makeSender(credential, environment)) })
        release(way.key, generation: try hold(way).generation)
        return way
    }

    /// The sender for the app's FCM credential; its client is built now if none is alive.
    ///
    /// - Throws: when the credential cannot make a client (its key file).
    func sender(for credential: FCMCredential) throws -> any FCMSender {
        let way = CachedSender(cache: self, key: Key(appID: credential.appID, environment: "fcm", version: credential.version),
                               build: { [makeFCMSender] in
                                   guard let makeFCMSender else { throw CredentialUnusable("this worker makes no FCM clients") }
                                   return .fcm(try makeFCMSender(credential))
                               })
        release(way.key, generation: try hold(way).generation)
        return way
    }

    /// Runs `body` with the current client of `way` (built again should it have been
    /// dropped), counted in use meanwhile; the error when none can be built.
    fileprivate func using<T>(_ way: CachedSender, _ body: (Client) async -> T) async -> Result<T, any Error> {
        let held: (sender: Client, generation: Int)
        do {
            held = try hold(way)
        } catch {
            return .failure(error)
        }
        defer { release(way.key, generation: held.generation) }
        return .success(await body(held.sender))
    }

    /// The client of `way`, counted as in use until `release`.
    private func hold(_ way: CachedSender) throws -> (sender: Client, generation: Int) {
        let key = way.key
        let now = clock.instant
        let current = entries.withLock { entries -> (Client, Int)? in
            guard let entry = entries[key] else { return nil }
            entries[key]?.inFlight += 1
            return (entry.sender, entry.generation)
        }
        if let current { return current }
        let built = try way.build()
        let generation = generations.wrappingAdd(1, ordering: .relaxed).newValue
        var unused: Client?
        let held = entries.withLock { entries -> (Client, Int) in
            if let entry = entries[key] {
                unused = built
                entries[key]?.inFlight += 1
                return (entry.sender, entry.generation)
            }
            for other in entries.keys where other.appID == key.appID && other.environment == key.environment {
                entries[other]?.superseded = true
            }
            entries[key] = Entry(sender: built, generation: generation, inFlight: 1, lastUsed: now)
            return (built, generation)
        }
        if let unused { Task { await unused.shutdown() } }
        evictIdle()
        return held
    }

    private func release(_ key: Key, generation: Int) {
        let now = clock.instant
        entries.withLock { entries in
            guard entries[key]?.generation == generation else { return }
            entries[key]?.inFlight -= 1
            entries[key]?.lastUsed = now
        }
    }

    /// Shuts down the clients nothing was sent through for `idleAfter`, and the replaced ones
    /// with nothing in flight; gives freed memory back when due (called every second).
    ///
    /// - Returns: how many were dropped.
    @discardableResult
    func evictIdle() -> Int {
        let now = clock.instant
        let idle = entries.withLock { entries -> [Client] in
            let keys = entries.filter { $0.value.inFlight == 0 && ($0.value.superseded || now - $0.value.lastUsed >= idleAfter) }.keys
            return keys.compactMap { entries.removeValue(forKey: $0)?.sender }
        }
        if idle.isEmpty {
            if memoryRelease.withLock({ $0.tick(now: now) }) { Task { releaseMemory() } }
        } else {
            memoryRelease.withLock { $0.dropped() }
            Task {
                for sender in idle { await sender.shutdown() }
                if memoryRelease.withLock({ $0.shutDown(now: clock.instant) }) { releaseMemory() }
            }
        }
        return idle.count
    }

    /// Clients alive now.
    var count: Int { entries.withLock { $0.count } }

    /// The counters of the clients alive now, per service.
    struct Statistics {
        var apns: [APNSClientStatistics] = []
        var fcm: [APNSClientStatistics] = []
    }

    /// The counters of every client alive now.
    var statistics: Statistics {
        entries.withLock { entries in
            var statistics = Statistics()
            for entry in entries.values {
                guard let counters = entry.sender.statistics else { continue }
                switch entry.sender {
                case .apns: statistics.apns.append(counters)
                case .fcm: statistics.fcm.append(counters)
                }
            }
            return statistics
        }
    }

    func shutdown() async {
        let all = entries.withLock { entries in
            defer { entries = [:] }
            return entries.values.map(\.sender)
        }
        for sender in all { await sender.shutdown() }
    }
}

/// A chunk's way to its app's client: `SenderCache` picks the client at each send.
private struct CachedSender: NotificationSender, FCMSender {
    let cache: SenderCache
    fileprivate let key: SenderCache.Key
    /// Builds the client when none is alive.
    fileprivate let build: @Sendable () throws -> SenderCache.Client

    func send(_ notifications: [APNSNotification], urgent: Bool) async -> [APNSResult] {
        let results = await cache.using(self) { client -> [APNSResult]? in
            guard case .apns(let sender) = client else { return nil }
            return await sender.send(notifications, urgent: urgent)
        }
        return (try? results.get()) ?? notifications.map { _ in .failed(.connectionFailed(Self.unavailable(results))) }
    }

    func send(_ messages: [FCMMessage], urgent: Bool) async -> [FCMResult] {
        let results = await cache.using(self) { client -> [FCMResult]? in
            guard case .fcm(let sender) = client else { return nil }
            return await sender.send(messages, urgent: urgent)
        }
        return (try? results.get()) ?? messages.map { _ in .failed(.transport(.connectionFailed(Self.unavailable(results)))) }
    }

    /// Why there was no client to send with.
    private static func unavailable<T>(_ result: Result<T?, any Error>) -> String {
        if case .failure(let error) = result { "\(error)" } else { "the cached client is of the other service" }
    }

    /// The cache owns the clients and shuts them down.
    func shutdown() async {}

    var statistics: APNSClientStatistics? { nil }
}
