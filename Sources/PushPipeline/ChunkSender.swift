import APNSClient
import FCMClient
import Foundation
import PostgresStore
import PushCore
import RelayCore
import Synchronization

/// Sends one leased chunk: the executor of its `ChunkLifecycle`. It loads the chunk's devices
/// that have no outcome yet, the message and the app's credential for the chunk's platform,
/// and performs what the lifecycle decides, each in turn: prepare the notification (APNs) or
/// message (FCM) and the client, reserve the badges, send a round, write its outcomes, back
/// off, pause the credential, give the chunk back to the queue.
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
    private let prepared = PreparedCache<PreparedNotification>()
    private let preparedFCM = PreparedCache<PreparedFCMMessage>()

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

    /// What a chunk's rounds are sent with: the message's notification and the app's APNs
    /// client for an iOS chunk, its FCM message and FCM client for an Android one.
    enum Delivery: Sendable {
        case apns(PreparedNotification, any NotificationSender, appKey: String)
        case fcm(PreparedFCMMessage, any FCMSender, appKey: String)

        var appKey: String {
            switch self {
            case .apns(_, _, let appKey), .fcm(_, _, let appKey): appKey
            }
        }

        /// The badge change to store before sending (APNs only: FCM messages carry none).
        var badge: BadgeChange? {
            if case .apns(let notification, _, _) = self { notification.badge } else { nil }
        }
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
            case .prepareDelivery(let credential):
                action = lifecycle.deliveryPrepared(prepareDelivery(chunk, loaded: loaded, credential: credential))
            case .reserveBadges(let targets, let delivery):
                let reserved = try await surviving(chunk) {
                    try await BadgeReservation.apply(delivery.badge, to: targets, appID: chunk.appID, pool: pool,
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

    /// The message's notification for an APNs credential's topic and the client of the
    /// credential in its environment, or the message's FCM message and the app's FCM client.
    private func prepareDelivery(_ chunk: LeasedChunk, loaded: LoadedChunk, credential: ChunkCredential) -> ChunkLifecycle<Delivery>.Prepared {
        do {
            switch credential {
            case .apns(let apns):
                let notification = prepared.value(messageID: chunk.messageID, variant: apns.topic, body: loaded.body) { request, msgID in
                    try APNSPayloadBuilder.prepare(request, msgID: msgID, topic: apns.topic, acceptedAt: loaded.acceptedAt, collapseID: loaded.collapseID)
                }
                guard let notification else { return .invalidBody }
                return .ready(.apns(notification, try senders.sender(for: apns, environment: apns.environment), appKey: apns.appKey))
            case .fcm(let fcm):
                let message = preparedFCM.value(messageID: chunk.messageID, variant: "", body: loaded.body) { request, msgID in
                    try FCMPayloadBuilder.prepare(request, msgID: msgID, acceptedAt: loaded.acceptedAt, collapseID: loaded.collapseID)
                }
                guard let message else { return .invalidBody }
                return .ready(.fcm(message, try senders.sender(for: fcm), appKey: fcm.appKey))
            }
        } catch {
            return .senderUnusable("\(error)")
        }
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

    /// Sends a round's notifications (or FCM messages) as one batch (the client bounds what is
    /// in flight) and pairs each result with its target, the answers counted in the metrics.
    /// The targeted lane's go ahead of the broadcasts' waiting in the same client (the same app's).
    private func sendRound(_ targets: [ChunkRun.Target], delivery: Delivery, lane: Lane) async -> [(ChunkRun.Target, DeliveryStep)] {
        switch delivery {
        case .apns(let notification, let sender, let appKey):
            let notifications = targets.map { target in
                let built = notification.notification(deviceID: target.deviceID, storedBadge: target.storedBadge)
                return APNSNotification(
                    deviceToken: target.token, topic: built.topic, pushType: APNSPushType(rawValue: built.pushType) ?? .alert,
                    priority: APNSPriority(rawValue: built.priority) ?? .immediate, expiration: built.expiration,
                    collapseID: built.collapseID, apnsID: built.apnsID, payload: built.payload)
            }
            let results = await sender.send(notifications, urgent: lane == .targeted)
            count(results, in: RelayMetrics.apnsResponses, appKey: appKey) { ResponseLabels.answer($0, metrics: metrics) }
            return zip(targets, results).map { target, result in (target, DeliveryStep(result)) }
        case .fcm(let message, let sender, let appKey):
            let messages = targets.map { FCMMessage(token: $0.token, message: message.message, expiration: message.expiration) }
            let results = await sender.send(messages, urgent: lane == .targeted)
            count(results, in: RelayMetrics.fcmResponses, appKey: appKey) { ResponseLabels.answer($0, metrics: metrics) }
            return zip(targets, results).map { target, result in (target, DeliveryStep(result)) }
        }
    }

    /// Counts a round's answers per kind, not per device: a round is mostly one kind.
    private func count<Result>(_ results: [Result], in metric: String, appKey: String, answer: (Result) -> ResponseLabels.Answer) {
        let app = metrics.bounded("app_key", appKey)
        var answers: [ResponseLabels.Answer: Int] = [:]
        for result in results { answers[answer(result), default: 0] += 1 }
        for (answer, number) in answers {
            metrics.increment(metric, answer.labels(appKey: app), by: Double(number))
        }
    }

    /// Marks the credential broken: the chunks it sends (its app's to its APNs environment,
    /// or to Android) wait for a new one.
    private func pause(_ credential: ChunkCredential, _ problem: ChunkLifecycle<Delivery>.CredentialProblem,
                       chunk: LeasedChunk) async throws {
        switch problem {
        case .unusable(let error):
            logger.error("the app's credential cannot be used; its deliveries through this service pause", [
                "app_id": String(chunk.appID), "service": credential.service, "error": error,
            ])
        case .refused(let reason):
            logger.error("the service refused the app's credential; its deliveries through it pause until a new one is uploaded", [
                "app_id": String(chunk.appID), "service": credential.service, "reason": reason,
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

/// Prepared notifications (or FCM messages) of recent messages (the JSON work is done once
/// per message, not once per chunk); bounded.
final class PreparedCache<Value: Sendable>: Sendable {
    private struct Key: Hashable {
        var messageID: Int64
        /// What else it was prepared for (an APNs topic).
        var variant: String
    }

    private let entries = Mutex<[Key: Value]>([:])
    private let limit = 256

    /// The message's value: cached, else built by `prepare` from the request its stored
    /// `body` parses to; nil when the body makes none.
    func value(messageID: Int64, variant: String, body: String, prepare: (PushRequest, MessageID) throws -> Value) -> Value? {
        let key = Key(messageID: messageID, variant: variant)
        if let cached = entries.withLock({ $0[key] }) { return cached }
        guard let msgID = MessageID(rawValue: messageID), let request = try? PushRequest.parseStored(Array(body.utf8)),
              let value = try? prepare(request, msgID)
        else { return nil }
        entries.withLock { entries in
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries[key] = value
        }
        return value
    }
}
