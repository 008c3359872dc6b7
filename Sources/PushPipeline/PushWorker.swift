import Foundation
import PostgresStore
import RelayCore
import RelayCrypto
import Synchronization

/// A worker of the push pipeline: resolves audiences into chunks, leases chunks (targeted
/// lane first, with slots of its own; broadcasts round-robin over apps) and sends them.
///
/// It wakes on NOTIFY (`NotificationListener`), when one of its chunks finishes, and every
/// `pollInterval` as a fallback; then it takes back chunks whose lease ran out (a dead
/// worker's) and leases while it has free slots. `run()` returns after `stop()`, once every
/// chunk in hand is finished.
public final class PushWorker: Sendable {
    private let pool: PostgresPool
    private let configuration: PipelineConfiguration
    private let logger: Logger
    private let queue: ChunkQueue
    private let resolver: AudienceResolver
    private let chunkSender: ChunkSender
    private let senders: SenderCache
    private let listener: NotificationListener
    private let wake = WakeSignal()
    private let resolveWake = WakeSignal()
    private let scheduler: Mutex<LaneScheduler>
    private let stopping = Atomic<Bool>(false)
    private let running = Mutex<[Int64: Task<Void, Never>]>([:])
    private let metrics: MetricsRegistry
    /// This worker's scrape-time collector in `metrics`.
    private let collectorKey: String

    /// - Parameters:
    ///   - connectionString: for the LISTEN connection (the pool's database).
    ///   - metrics: where outcomes, APNs answers and the APNs clients' state are counted.
    public init(pool: PostgresPool, connectionString: String, secretBox: SecretBox, configuration: PipelineConfiguration,
                logger: Logger, metrics: MetricsRegistry = .shared) {
        let owner = "\(ProcessInfo.processInfo.hostName)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let logger = logger.with(["component": "worker"])
        self.pool = pool
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        collectorKey = "apns-clients-\(owner)"
        queue = ChunkQueue(pool: pool, owner: owner, leaseSeconds: configuration.leaseSeconds)
        let chunkMaker = ChunkMaker(chunkSize: configuration.chunkSize)
        resolver = AudienceResolver(pool: pool, chunkMaker: chunkMaker, sliceSize: configuration.chunkSize * 20)
        senders = SenderCache(configuration: configuration, box: secretBox, logger: logger)
        chunkSender = ChunkSender(
            pool: pool, queue: queue, writer: OutcomeWriter(pool: pool, owner: owner), senders: senders,
            backoff: Backoff(), roundsPerLease: 4, logger: logger, metrics: metrics)
        scheduler = Mutex(LaneScheduler(slots: configuration.slots, reservedForTargeted: configuration.targetedSlots))
        let wake = wake
        let resolveWake = resolveWake
        listener = NotificationListener(connectionString: connectionString, logger: logger) { payloads in
            wake.signal()
            // Chunks made by the API (targeted pushes) leave nothing to resolve.
            if payloads?.allSatisfy({ $0 == PushChannel.chunksReady }) != true { resolveWake.signal() }
        }
    }

    /// Runs until `stop()`: the leasing loop and the resolving loop side by side.
    public func run() async {
        listener.start()
        let senders = senders
        metrics.setCollector(collectorKey) { APNSClientMetrics.families(senders.statistics) }
        logger.info("worker started", ["slots": String(configuration.slots), "chunk_size": String(configuration.chunkSize)])
        await withTaskGroup(of: Void.self) { group in
            group.addTask(priority: .high) { await self.leaseLoop() }
            group.addTask { await self.resolveLoop() }
        }
        let tasks = running.withLock { Array($0.values) }
        for task in tasks { await task.value }
        await listener.stop()
        await senders.shutdown()
        metrics.removeCollector(collectorKey)
        logger.info("worker stopped")
    }

    /// Asks `run()` to return: no new leases; chunks in hand finish.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
        resolveWake.signal()
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func resolveLoop() async {
        while !isStopping {
            var pause = configuration.pollInterval
            do {
                resolving: while !isStopping {
                    switch try await resolver.resolveNextSlice() {
                    case .made: wake.signal()
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
            await resolveWake.wait(timeout: pause)
        }
    }

    private func leaseLoop() async {
        var lastReclaim = ContinuousClock.now - .seconds(60)
        while !isStopping {
            do {
                if ContinuousClock.now - lastReclaim > .seconds(1) {
                    lastReclaim = ContinuousClock.now
                    if try await queue.reclaimExpired() > 0 { logger.info("took back chunks whose lease ran out") }
                }
                try await fillSlots()
            } catch {
                logger.warning("leasing failed; retrying", ["error": "\(error)"])
            }
            await wake.wait(timeout: configuration.pollInterval)
        }
    }

    /// Leases the next chunk of `lane`. A targeted chunk's devices, message and credential
    /// are read in the same hop to the pool: one wait for a connection less between the
    /// NOTIFY and the send. Should that read fail, the chunk's task reads them again.
    private func lease(_ lane: Lane, afterApp: Int64) async throws -> (chunk: LeasedChunk, loaded: ChunkSender.Loaded?)? {
        guard lane == .targeted else { return try await queue.lease(lane, afterApp: afterApp).map { ($0, nil) } }
        let (queue, chunkSender) = (queue, chunkSender)
        return try await pool.withConnection { connection in
            guard let chunk = try queue.lease(lane, afterApp: afterApp, on: connection) else { return nil }
            return (chunk, try? chunkSender.load(chunk, on: connection))
        }
    }

    /// Leases chunks while there are free slots and ready chunks.
    private func fillSlots() async throws {
        var targetedEmpty = false
        var broadcastEmpty = false
        while !isStopping {
            let (lane, afterApp) = scheduler.withLock { ($0.nextLane(targetedEmpty: targetedEmpty, broadcastEmpty: broadcastEmpty), $0.lastBroadcastApp) }
            guard let lane else { return }
            let leased = try await lease(lane, afterApp: afterApp)
            guard let (chunk, loaded) = leased else {
                if lane == .targeted { targetedEmpty = true } else { broadcastEmpty = true }
                continue
            }
            scheduler.withLock { $0.started(lane, appID: chunk.appID) }
            let sender = chunkSender
            // Registered under the lock the task's own removal takes, so it cannot finish first.
            // Targeted chunks (and the leasing loop) run at a higher priority than broadcast
            // chunks: their continuations do not queue behind a broadcast's CPU work.
            running.withLock { tasks in
                tasks[chunk.id] = Task(priority: lane == .targeted ? .high : .low) { [self] in
                    await sender.run(chunk, loaded: loaded)
                    scheduler.withLock { $0.finished(lane) }
                    _ = running.withLock { $0.removeValue(forKey: chunk.id) }
                    wake.signal()
                }
            }
        }
    }
}
