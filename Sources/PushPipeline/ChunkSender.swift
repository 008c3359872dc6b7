import APNSClient
import Foundation
import PostgresStore
import PushCore
import RelayCore
import Synchronization

/// Sends one leased chunk: the executor of its `ChunkLifecycle`. It loads the chunk's devices
/// that have no outcome yet, the message and the app's credential, and performs what the
/// lifecycle decides, each in turn: prepare the notification and the client, reserve the
/// badges, send a round, write its outcomes, back off, pause the credential, give the chunk
/// back to the queue.
///
/// The lifecycle's time comes from `clock`. The lease's heartbeat (`LeaseKeeper`) and the wait
/// for a database that went away keep real time: the lease runs out on PostgreSQL's clock.
struct ChunkSender: Sendable {
    let pool: PostgresPool
    let queue: ChunkQueue
    let leases: LeaseKeeper
    let writer: OutcomeWriter
    let senders: SenderCache
    let backoff: Backoff
    let roundsPerLease: Int
    let retryPacer: RetryPacer
    let clock: any PipelineClock
    let logger: Logger
    let metrics: MetricsRegistry
    private let prepared = PreparedCache()

    init(pool: PostgresPool, queue: ChunkQueue, leases: LeaseKeeper, writer: OutcomeWriter, senders: SenderCache, backoff: Backoff,
         roundsPerLease: Int, retryPacer: RetryPacer, clock: any PipelineClock, logger: Logger, metrics: MetricsRegistry = .shared) {
        self.metrics = metrics
        self.retryPacer = retryPacer
        self.pool = pool
        self.queue = queue
        self.leases = leases
        self.writer = writer
        self.senders = senders
        self.backoff = backoff
        self.roundsPerLease = roundsPerLease
        self.clock = clock
        self.logger = logger
    }

    /// What a chunk's rounds are sent with.
    struct Delivery: Sendable {
        var notification: PreparedNotification
        var sender: any NotificationSender
        var appKey: String
    }

    /// Sends `chunk`; `loaded` is what was read with its lease, if it was (a targeted chunk's
    /// lease and load share one round trip to the pool).
    func run(_ chunk: LeasedChunk, loaded: LoadedChunk? = nil) async {
        // The lease is kept while the chunk is worked on, however long a round takes.
        leases.hold(chunk)
        defer { leases.drop(chunk) }
        do {
            try await send(chunk, loaded: loaded)
        } catch {
            // The lease runs out and another attempt picks the chunk up.
            logger.warning("chunk failed; it will be leased again", [
                "chunk": String(chunk.id), "msg_id": String(chunk.messageID), "error": "\(error)",
            ])
        }
    }

    /// Performs the chunk's lifecycle, action after action, until it ends.
    private func send(_ chunk: LeasedChunk, loaded: LoadedChunk?) async throws {
        var chunk = chunk
        let loaded = if let loaded { loaded } else { try await surviving(chunk) { try await load(chunk) } }
        var lifecycle = ChunkLifecycle<Delivery>(roundsPerLease: roundsPerLease, backoff: backoff)
        var action = lifecycle.loaded(loaded, now: clock.now)
        while true {
            switch action {
            case .prepareDelivery(let credential, let environment):
                action = lifecycle.deliveryPrepared(prepareDelivery(chunk, loaded: loaded, credential: credential, environment: environment))
            case .reserveBadges(let targets, let delivery):
                let reserved = try await surviving(chunk) {
                    try await BadgeReservation.apply(delivery.notification.badge, to: targets, appID: chunk.appID, pool: pool,
                                                     priority: chunk.priority)
                }
                action = lifecycle.badgesReserved(reserved, now: clock.now)
            case .send(let round, let delivery):
                action = lifecycle.answered(await sendRound(round, delivery: delivery, lane: chunk.lane))
            case .record(let batch, let delivery):
                let written = try await write(&chunk, batch)
                count(written, retries: batch.retries, appKey: delivery.appKey)
                action = lifecycle.written(written.messageState)
            case .finish(let batch):
                action = lifecycle.written(try await write(&chunk, batch).messageState)
            case .takeRetryBudget:
                action = lifecycle.retryBudgetTaken(overBudget: retryPacer.wait(app: chunk.appID, now: clock.instant),
                                                    jitter: Double.random(in: 0...1), now: clock.now)
            case .backOff(let delay):
                try await clock.sleep(for: delay)
                action = lifecycle.wokeUp(now: clock.now)
            case .pauseCredential(let credential, let problem):
                try await pause(credential, problem, chunk: chunk)
                action = lifecycle.credentialPaused()
            case .release(let delay):
                try await surviving(chunk) { try await queue.release(chunk, after: delay) }
                return
            case .done:
                return
            }
        }
    }

    /// Runs a database step of the chunk, waiting out an outage (for up to a lease) instead
    /// of dropping the chunk: sent notifications whose outcomes were not written would be
    /// sent again, and a chunk dropped before sending would wait out its lease.
    private func surviving<T: Sendable>(_ chunk: LeasedChunk, _ step: () async throws -> T) async throws -> T {
        var failures = 0
        let giveUp = ContinuousClock.now + .seconds(queue.leaseSeconds)
        while true {
            do {
                return try await step()
            } catch PostgresError.unavailable(let message) where ContinuousClock.now < giveUp {
                failures += 1
                if failures == 1 {
                    logger.warning("database unavailable; the chunk waits for it", [
                        "chunk": String(chunk.id), "msg_id": String(chunk.messageID), "error": message,
                    ])
                }
                try await Task.sleep(for: min(backoff.delay(retry: failures, jitter: Double.random(in: 0...1)), .seconds(1)))
            }
        }
    }

    /// Writes a batch of `chunk`'s outcomes, and counts the write in it once it succeeded.
    private func write(_ chunk: inout LeasedChunk, _ batch: ChunkLifecycle<Delivery>.Batch) async throws -> OutcomeWriter.Written {
        let leased = chunk
        let written = try await surviving(leased) {
            try await writer.write(leased, outcomes: batch.outcomes, retries: batch.retries, sentAt: batch.sentAt,
                                   chunkComplete: batch.chunkComplete)
        }
        chunk.writes += 1
        return written
    }

    /// The message's notification for the credential's topic, and the client of the
    /// credential in the chunk's environment.
    private func prepareDelivery(_ chunk: LeasedChunk, loaded: LoadedChunk, credential: AppCredential,
                                 environment: String) -> ChunkLifecycle<Delivery>.Prepared {
        guard let notification = preparedNotification(chunk, loaded: loaded, topic: credential.topic) else { return .invalidBody }
        do {
            let sender = try senders.sender(for: credential, environment: environment)
            return .ready(Delivery(notification: notification, sender: sender, appKey: credential.appKey))
        } catch {
            return .senderUnusable("\(error)")
        }
    }

    /// The message's notification for `topic`, built once per message (`PreparedCache`); nil when
    /// the stored body makes none.
    private func preparedNotification(_ chunk: LeasedChunk, loaded: LoadedChunk, topic: String) -> PreparedNotification? {
        if let cached = prepared.get(messageID: chunk.messageID, topic: topic) { return cached }
        guard let msgID = MessageID(rawValue: chunk.messageID),
              let request = try? PushRequest.parse(Array(loaded.body.utf8)),
              let notification = try? APNSPayloadBuilder.prepare(request, msgID: msgID, topic: topic, acceptedAt: loaded.acceptedAt,
                                                                 collapseID: loaded.collapseID)
        else { return nil }
        prepared.put(notification, messageID: chunk.messageID, topic: topic)
        return notification
    }

    /// Adds a written batch to the metrics: outcomes, dead tokens and retries of the app.
    private func count(_ written: OutcomeWriter.Written, retries: Int, appKey: String) {
        let app = metrics.bounded("app_key", appKey)
        for (outcome, number) in written.counts where number > 0 {
            metrics.increment(RelayMetrics.deliveries, ["app_key": app, "outcome": outcome.rawValue], by: Double(number))
        }
        if let invalidated = written.counts[.invalidated], invalidated > 0 {
            metrics.increment(RelayMetrics.tokensInvalidated, ["app_key": app], by: Double(invalidated))
        }
        if retries > 0 { metrics.increment(RelayMetrics.retries, ["app_key": app], by: Double(retries)) }
    }

    /// Sends a round's notifications as one batch (the client bounds what is in flight) and
    /// pairs each result with its target. The targeted lane's go ahead of the broadcasts'
    /// waiting in the same client (the same app's).
    private func sendRound(_ targets: [ChunkRun.Target], delivery: Delivery, lane: Lane) async -> [(ChunkRun.Target, DeliveryStep)] {
        let app = metrics.bounded("app_key", delivery.appKey)
        let notifications = targets.map { target in
            let built = delivery.notification.notification(deviceID: target.deviceID, storedBadge: target.storedBadge)
            return APNSNotification(
                deviceToken: target.token, topic: built.topic, pushType: APNSPushType(rawValue: built.pushType) ?? .alert,
                priority: APNSPriority(rawValue: built.priority) ?? .immediate, expiration: built.expiration,
                collapseID: built.collapseID, apnsID: built.apnsID, payload: built.payload)
        }
        let results = await delivery.sender.send(notifications, urgent: lane == .targeted)
        // Counted per kind of answer, not per device: a round is mostly one kind.
        var accepted = 0
        var answers: [APNSResponseLabels.Answer: Int] = [:]
        let steps = zip(targets, results).map { target, result in
            if case .accepted = result { accepted += 1 } else { answers[APNSResponseLabels.answer(result, metrics: metrics), default: 0] += 1 }
            return (target, DeliveryStep(result))
        }
        if accepted > 0 { answers[APNSResponseLabels.accepted, default: 0] += accepted }
        for (answer, number) in answers {
            metrics.increment(RelayMetrics.apnsResponses, answer.labels(appKey: app), by: Double(number))
        }
        return steps
    }

    /// Marks the credential broken: the chunks of its app and environment wait for a new one.
    private func pause(_ credential: AppCredential, _ problem: ChunkLifecycle<Delivery>.CredentialProblem,
                       chunk: LeasedChunk) async throws {
        switch problem {
        case .unusable(let error):
            logger.error("the app's APNs credential cannot be used; its deliveries to this environment pause", [
                "app_id": String(chunk.appID), "environment": credential.environment, "error": error,
            ])
        case .refused(let reason):
            logger.error("APNs refused the app's credential; its deliveries to this environment pause until a new one is uploaded", [
                "app_id": String(chunk.appID), "environment": credential.environment, "reason": reason,
            ])
        }
        try await surviving(chunk) {
            try await pool.withConnection { connection in try credential.markBroken(reason: problem.reason, on: connection) }
        }
    }

    private func load(_ chunk: LeasedChunk) async throws -> LoadedChunk {
        try await pool.withConnection(priority: chunk.priority) { connection in try LoadedChunk.read(chunk, on: connection) }
    }
}

/// Prepared notifications of recent messages (the JSON work is done once per message, not
/// once per chunk); bounded.
final class PreparedCache: Sendable {
    private struct Key: Hashable {
        var messageID: Int64
        var topic: String
    }

    private let entries = Mutex<[Key: PreparedNotification]>([:])
    private let limit = 256

    func get(messageID: Int64, topic: String) -> PreparedNotification? {
        entries.withLock { $0[Key(messageID: messageID, topic: topic)] }
    }

    func put(_ notification: PreparedNotification, messageID: Int64, topic: String) {
        entries.withLock { entries in
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries[Key(messageID: messageID, topic: topic)] = notification
        }
    }
}
