import APNSClient
import Foundation
import PostgresStore
import RelayCore
import RelayCrypto
import Synchronization

/// A worker of the push pipeline: resolves audiences into chunks, leases chunks (a loop per
/// lane: targeted chunks with slots of their own, broadcasts round-robin over apps) and sends
/// them.
///
/// Each loop wakes on NOTIFY (`NotificationListener`; a targeted push's "chunks" wakes only
/// the targeted loop), when a chunk finishes, and every `pollInterval` as a fallback; the
/// broadcast loop also takes back chunks whose lease ran out (a dead worker's). `run()`
/// returns after `stop()`, once every chunk in hand is finished.
public final class PushWorker: HandoffReceiver {
    private let pool: PostgresPool
    private let configuration: PipelineConfiguration
    private let logger: Logger
    private let queue: ChunkQueue
    private let resolver: AudienceResolver
    private let chunkSender: ChunkSender
    private let leases: LeaseKeeper
    private let senders: SenderCache
    private let listener: NotificationListener
    /// Wakes the targeted lane's leasing loop: chunks made by the API, a free slot.
    private let targetedWake = WakeSignal()
    /// Wakes the broadcast lane's leasing loop: chunks made by a resolver, a free slot.
    private let broadcastWake = WakeSignal()
    private let resolveWake = WakeSignal()
    private let scheduler: Mutex<LaneScheduler>
    private let stopping = Atomic<Bool>(false)
    private let running = Mutex<[Int64: Task<Void, Never>]>([:])
    private let clock: any PipelineClock
    private let metrics: MetricsRegistry
    /// Where each loop beats, so a hung worker fails `/healthz` (`Liveness`).
    private let liveness: Liveness?
    /// This worker's scrape-time collector in `metrics`.
    private let collectorKey: String

    /// - Parameters:
    ///   - connectionString: for the LISTEN connection (the pool's database).
    ///   - metrics: where outcomes, APNs answers and the APNs clients' state are counted.
    ///   - clock: the chunks' time (expiry, backoff, the retry budget) and the leasing loops'.
    ///   - liveness: where the leasing and resolving loops beat.
    public convenience init(pool: PostgresPool, connectionString: String, secretBox: SecretBox, configuration: PipelineConfiguration,
                            logger: Logger, metrics: MetricsRegistry = .shared, clock: any PipelineClock = SystemClock(),
                            liveness: Liveness? = nil) {
        // APNs and FCM clients share the bound on connections and the TLS sessions.
        let resources = APNSClientResources(maxConnections: configuration.apnsMaxConnectionsTotal)
        let logger = logger.with(["component": "worker"])
        self.init(pool: pool, connectionString: connectionString, configuration: configuration, logger: logger, metrics: metrics,
                  clock: clock, liveness: liveness,
                  makeSender: APNSClientSender.make(configuration: configuration, box: secretBox, logger: logger, resources: resources),
                  makeFCMSender: FCMClientSender.make(configuration: configuration, box: secretBox, logger: logger, resources: resources))
    }

    /// - Parameters:
    ///   - makeSender: builds the APNs client of each app's credential (or fakes in tests).
    ///   - makeFCMSender: builds the FCM client of each app's service account; nil: none.
    init(pool: PostgresPool, connectionString: String, configuration: PipelineConfiguration, logger: Logger,
         metrics: MetricsRegistry = .shared, clock: any PipelineClock = SystemClock(), liveness: Liveness? = nil,
         makeSender: @escaping SenderCache.MakeSender, makeFCMSender: SenderCache.MakeFCMSender? = nil) {
        let owner = "\(ProcessInfo.processInfo.hostName)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let logger = logger.with(["component": "worker"])
        self.pool = pool
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
        self.liveness = liveness
        collectorKey = "apns-clients-\(owner)"
        queue = ChunkQueue(pool: pool, owner: owner, leaseSeconds: configuration.leaseSeconds)
        let chunkMaker = ChunkMaker(chunkSize: configuration.chunkSize)
        resolver = AudienceResolver(pool: pool, chunkMaker: chunkMaker, sliceSize: configuration.chunkSize * 20)
        senders = SenderCache(idleAfter: .seconds(configuration.apnsIdleTimeout), clock: clock, makeSender: makeSender,
                              makeFCMSender: makeFCMSender)
        leases = LeaseKeeper(queue: queue)
        chunkSender = ChunkSender(
            pool: pool, queue: queue, leases: leases, writer: OutcomeWriter(pool: pool, owner: owner), senders: senders,
            backoff: Backoff(), roundsPerLease: 4,
            retryPacer: RetryPacer(RetryBudget(rate: configuration.retryRounds, burst: configuration.retryRounds)),
            clock: clock, logger: logger, metrics: metrics)
        scheduler = Mutex(LaneScheduler(broadcastSlots: configuration.slots, targetedSlots: configuration.targetedSlots))
        let (targetedWake, broadcastWake, resolveWake) = (targetedWake, broadcastWake, resolveWake)
        listener = NotificationListener(connectionString: connectionString, logger: logger) { payloads in
            targetedWake.signal()
            // Chunks made by the API (targeted pushes) leave nothing to resolve, and no
            // broadcast chunk.
            if payloads?.allSatisfy({ $0 == PushChannel.chunksReady }) != true {
                broadcastWake.signal()
                resolveWake.signal()
            }
        }
    }

    /// Runs until `stop()`: a leasing loop per lane and the resolving loop side by side.
    public func run() async {
        listener.start()
        let senders = senders
        metrics.setCollector(collectorKey) { ClientMetrics.families(senders.statistics) }
        let leases = leases
        let keeping = Task { await leases.run() }
        logger.info("worker started", ["slots": String(configuration.slots), "targeted_slots": String(configuration.targetedSlots), "chunk_size": String(configuration.chunkSize)])
        await withTaskGroup(of: Void.self) { group in
            // The targeted lane has a loop of its own: a NOTIFY for a single-user push is
            // never answered after a broadcast lease that waits for a pool connection.
            group.addTask(priority: .high) { await self.leaseLoop(.targeted, wake: self.targetedWake) }
            group.addTask { await self.leaseLoop(.broadcast, wake: self.broadcastWake) }
            group.addTask { await self.resolveLoop() }
        }
        // A push accepted while the loops stopped may still hand a chunk over: wait until none is left.
        while let task = running.withLock({ $0.values.first }) { await task.value }
        leases.stop()
        await keeping.value
        await listener.stop()
        await senders.shutdown()
        metrics.removeCollector(collectorKey)
        logger.info("worker stopped")
    }

    /// Asks `run()` to return: no new leases; chunks in hand finish.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        targetedWake.signal()
        broadcastWake.signal()
        resolveWake.signal()
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func resolveLoop() async {
        let name = "worker resolving"
        while !isStopping {
            var pause = configuration.pollInterval
            do {
                resolving: while !isStopping {
                    liveness?.beat(name)
                    switch try await resolver.resolveNextSlice() {
                    case .made: broadcastWake.signal()
                    case .busy:
                        // The lock is held for a statement or two: look again soon, not at
                        // the next poll.
                        pause = .milliseconds(5)
                        break resolving
                    case .idle: break resolving
                    }
                }
            } catch {
                logger.warning("resolving failed; retrying", ["error": "\(error)"])
            }
            liveness?.beat(name, nextWithin: pause)
            await resolveWake.wait(timeout: pause)
        }
        liveness?.end(name)
    }

    /// Leases `lane`'s chunks while it has free slots, then waits for `wake` (or the poll
    /// interval). The broadcast loop also takes back, once a second, chunks whose lease ran out.
    private func leaseLoop(_ lane: Lane, wake: WakeSignal) async {
        var lastReclaim = clock.instant - .seconds(60)
        let name = "worker \(lane.rawValue) leasing"
        while !isStopping {
            liveness?.beat(name)
            do {
                if lane == .broadcast && clock.instant - lastReclaim > .seconds(1) {
                    lastReclaim = clock.instant
                    senders.evictIdle()
                    if try await queue.reclaimExpired() > 0 {
                        logger.info("took back chunks whose lease ran out")
                        targetedWake.signal()
                    }
                }
                try await fillSlots(lane)
            } catch {
                logger.warning("leasing failed; retrying", ["lane": lane.rawValue, "error": "\(error)"])
            }
            liveness?.beat(name, nextWithin: configuration.pollInterval)
            await wake.wait(timeout: configuration.pollInterval)
        }
        liveness?.end(name)
    }

    /// Leases the next chunk of `lane`. A targeted chunk comes with what it needs from the
    /// database, read by the same statement (`LoadedChunk.leaseTargeted`).
    private func lease(_ lane: Lane, afterApp: Int64) async throws -> (chunk: LeasedChunk, loaded: LoadedChunk?)? {
        guard lane == .targeted else { return try await queue.lease(lane, afterApp: afterApp).map { ($0, nil) } }
        let (owner, leaseSeconds) = (queue.owner, queue.leaseSeconds)
        return try await pool.withConnection { connection in
            try LoadedChunk.leaseTargeted(owner: owner, leaseSeconds: leaseSeconds, on: connection).map { ($0.0, $0.1) }
        }
    }

    /// Leases chunks of `lane` while it has free slots and ready chunks.
    private func fillSlots(_ lane: Lane) async throws {
        while !isStopping {
            if lane == .broadcast {
                let extra = extraBroadcastSlots
                scheduler.withLock { $0.setExtraBroadcastSlots(extra) }
            }
            guard let afterApp = scheduler.withLock({ $0.reserve(lane) ? $0.lastBroadcastApp : nil }) else { return }
            let leased: (chunk: LeasedChunk, loaded: LoadedChunk?)?
            do {
                leased = try await lease(lane, afterApp: afterApp)
            } catch {
                scheduler.withLock { $0.finished(lane) }
                throw error
            }
            guard let (chunk, loaded) = leased else {
                scheduler.withLock { $0.finished(lane) }
                return
            }
            if lane == .broadcast { scheduler.withLock { $0.servedBroadcast(appID: chunk.appID) } }
            start(chunk, loaded: loaded)
        }
    }

    /// A chunk more for each chunk's worth the APNs and FCM clients' windows grew beyond their
    /// start (at most 4 × `slots`: chunks in memory stay bounded however many apps broadcast).
    private var extraBroadcastSlots: Int {
        let clients = senders.statistics
        let grown = (clients.apns + clients.fcm).reduce(0) { $0 + max(0, $1.window - configuration.apnsMinInFlight) }
        return min(4 * configuration.slots, (grown + configuration.chunkSize - 1) / configuration.chunkSize)
    }

    /// Sends a chunk leased in a slot of its lane, and gives the slot back when it is done.
    private func start(_ chunk: LeasedChunk, loaded: LoadedChunk?) {
        let sender = chunkSender
        let lane = chunk.lane
        // Registered under the lock the task's own removal takes, so it cannot finish first.
        // Targeted chunks (and their leasing loop) run at a higher priority than broadcast
        // chunks: their continuations do not queue behind a broadcast's CPU work.
        running.withLock { tasks in
            tasks[chunk.id] = Task(priority: lane == .targeted ? .high : .low) { [self] in
                await sender.run(chunk, loaded: loaded)
                scheduler.withLock { $0.finished(lane) }
                _ = running.withLock { $0.removeValue(forKey: chunk.id) }
                // A free slot of its lane.
                (lane == .targeted ? targetedWake : broadcastWake).signal()
            }
        }
    }

    // MARK: Hand-off from the API in the same process

    /// The lease a push's accepting statement may give this worker (`MessageStore`): a
    /// targeted slot is taken first, so the chunk starts the moment the push is stored. The
    /// chunk settled, leased to this worker and read by the accepting statement, is sent at
    /// once; `nil` (nothing was leased: nobody matched, a shared cid, a broken credential)
    /// gives the slot back.
    public func reserveHandoff() -> Handoff? {
        guard !isStopping, scheduler.withLock({ $0.reserve(.targeted) }) else { return nil }
        return Handoff(owner: queue.owner, leaseSeconds: queue.leaseSeconds) { [self] handed in
            guard let handed else {
                scheduler.withLock { $0.finished(.targeted) }
                targetedWake.signal()
                return
            }
            start(handed.chunk, loaded: handed.loaded)
        }
    }
}
