import APNSClient
import CSystem
import Foundation
import Synchronization

/// One APNs client per (app, environment) while the app has work: built on first use,
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
    private struct Key: Hashable {
        var appID: Int64
        var environment: String
        /// A chunk still sending with the replaced credential keeps its client.
        var version: String
    }

    private struct Entry {
        var sender: any NotificationSender
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
    /// Gives free memory back to the kernel (malloc_trim; a counter in tests).
    typealias ReleaseMemory = @Sendable () -> Void
    static let releaseMemoryInterval: Duration = .seconds(60)

    private let makeSender: MakeSender
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
         releaseMemory: @escaping ReleaseMemory = { _ = CSystem_release_free_memory() }, makeSender: @escaping MakeSender) {
        self.idleAfter = idleAfter
        self.clock = clock
        self.releaseMemory = releaseMemory
        self.makeSender = makeSender
    }

    /// The sender for the app's credential in this environment; its client is built now if
    /// none is alive.
    ///
    /// - Throws: when the credential cannot make a client (bad key or certificate).
    func sender(for credential: AppCredential, environment: String) throws -> any NotificationSender {
        let key = Key(appID: credential.appID, environment: environment, version: credential.version)
        release(key, generation: try hold(credential, key: key).generation)
        return CachedSender(cache: self, credential: credential, environment: environment)
    }

    /// Sends through the current client of the credential.
    fileprivate func send(_ notifications: [APNSNotification], urgent: Bool, credential: AppCredential,
                          environment: String) async -> [APNSResult] {
        let key = Key(appID: credential.appID, environment: environment, version: credential.version)
        let held: (sender: any NotificationSender, generation: Int)
        do {
            held = try hold(credential, key: key)
        } catch {
            return notifications.map { _ in .failed(.connectionFailed("\(error)")) }
        }
        defer { release(key, generation: held.generation) }
        return await held.sender.send(notifications, urgent: urgent)
    }

    /// The client of `credential`, counted as in use until `release`.
    private func hold(_ credential: AppCredential, key: Key) throws -> (sender: any NotificationSender, generation: Int) {
        let now = clock.instant
        let current = entries.withLock { entries -> (any NotificationSender, Int)? in
            guard let entry = entries[key] else { return nil }
            entries[key]?.inFlight += 1
            return (entry.sender, entry.generation)
        }
        if let current { return current }
        let built = try makeSender(credential, key.environment)
        let generation = generations.wrappingAdd(1, ordering: .relaxed).newValue
        var unused: (any NotificationSender)?
        let held = entries.withLock { entries -> (any NotificationSender, Int) in
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
        let idle = entries.withLock { entries -> [any NotificationSender] in
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

    /// The counters of every client alive now.
    var statistics: [APNSClientStatistics] {
        entries.withLock { $0.values.compactMap(\.sender.statistics) }
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
private struct CachedSender: NotificationSender {
    let cache: SenderCache
    let credential: AppCredential
    let environment: String

    func send(_ notifications: [APNSNotification], urgent: Bool) async -> [APNSResult] {
        await cache.send(notifications, urgent: urgent, credential: credential, environment: environment)
    }

    /// The cache owns the clients and shuts them down.
    func shutdown() async {}
}
