import APNSClient
import Foundation
import PostgresStore
import PushCore
import RelayCore
import Synchronization

/// Sends one leased chunk: loads its devices that have no outcome yet, the message and the
/// app's credential, sends each device's notification, and writes outcomes back after every
/// round. Devices APNs asked to retry go again after a backoff, up to `roundsPerLease`
/// rounds; then the chunk goes back to the queue with that delay (never past the message's
/// expiration, when the rest are recorded `expired`). A retry round beyond the app's
/// `RetryBudget` goes back to the queue at once, for as long as the budget says: one app's
/// failing work does not hold the slots other apps' pushes need.
struct ChunkSender: Sendable {
    let pool: PostgresPool
    let queue: ChunkQueue
    let writer: OutcomeWriter
    let senders: SenderCache
    let backoff: Backoff
    let roundsPerLease: Int
    let retryPacer: RetryPacer
    let logger: Logger
    let metrics: MetricsRegistry
    private let prepared = PreparedCache()

    init(pool: PostgresPool, queue: ChunkQueue, writer: OutcomeWriter, senders: SenderCache, backoff: Backoff,
         roundsPerLease: Int, retryPacer: RetryPacer, logger: Logger, metrics: MetricsRegistry = .shared) {
        self.metrics = metrics
        self.retryPacer = retryPacer
        self.pool = pool
        self.queue = queue
        self.writer = writer
        self.senders = senders
        self.backoff = backoff
        self.roundsPerLease = roundsPerLease
        self.logger = logger
    }

    /// Sends `chunk`; `loaded` is what was read with its lease, if it was (a targeted chunk's
    /// lease and load share one round trip to the pool).
    func run(_ chunk: LeasedChunk, loaded: LoadedChunk? = nil) async {
        // The lease is kept while the chunk is worked on, however long a round takes (a
        // slow APNs): otherwise another worker would lease it and send it again.
        let heartbeat = Task { [queue] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(max(1, queue.leaseSeconds / 3)))
                if Task.isCancelled { return }
                try? await queue.extend(chunk)
            }
        }
        defer { heartbeat.cancel() }
        do {
            try await send(chunk, loaded: loaded)
        } catch {
            // The lease runs out and another attempt picks the chunk up.
            logger.warning("chunk failed; it will be leased again", [
                "chunk": String(chunk.id), "msg_id": String(chunk.messageID), "error": "\(error)",
            ])
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

    /// Writes outcomes of `chunk`, and counts the write in it once it succeeded.
    private func write(_ chunk: inout LeasedChunk, outcomes: [ChunkRun.Outcome], retries: Int, sentAt: Date,
                       chunkComplete: Bool) async throws -> OutcomeWriter.Written {
        let leased = chunk
        let written = try await surviving(leased) {
            try await writer.write(leased, outcomes: outcomes, retries: retries, sentAt: sentAt, chunkComplete: chunkComplete)
        }
        chunk.writes += 1
        return written
    }

    private func send(_ chunk: LeasedChunk, loaded: LoadedChunk?) async throws {
        var chunk = chunk
        let loaded = if let loaded { loaded } else { try await surviving(chunk) { try await load(chunk) } }
        let now = Date()
        guard loaded.messageState.isSending else {
            // Withdrawn (or already finished): what is not sent now never will be.
            _ = try await write(&chunk, outcomes: [], retries: 0, sentAt: now, chunkComplete: true)
            return
        }
        var early = loaded.unsendable
        func finishAll(_ outcome: DeliveryOutcome, _ reason: String) -> [ChunkRun.Outcome] {
            early + loaded.targets.map { ChunkRun.Outcome(deviceID: $0.deviceID, outcome: outcome, reason: reason, attempts: 0) }
        }
        guard loaded.expiresAt > now else {
            _ = try await write(&chunk, outcomes: finishAll(.expired, "Expired"), retries: 0, sentAt: now, chunkComplete: true)
            return
        }
        guard let credential = loaded.credential else {
            _ = try await write(&chunk, outcomes: finishAll(.failed, "NoCredentials"), retries: 0, sentAt: now, chunkComplete: true)
            return
        }
        guard !credential.isBroken else {
            // Leased just before the credential broke: it waits with the environment's other chunks.
            try await surviving(chunk) { try await queue.release(chunk, after: .zero) }
            return
        }
        guard let notification = preparedNotification(chunk, loaded: loaded, topic: credential.topic) else {
            _ = try await write(&chunk, outcomes: finishAll(.failed, "InvalidBody"), retries: 0, sentAt: now, chunkComplete: true)
            return
        }
        let sender: any NotificationSender
        do {
            sender = try senders.sender(for: credential, environment: loaded.environment)
        } catch {
            logger.error("the app's APNs credential cannot be used; its deliveries to this environment pause", [
                "app_id": String(chunk.appID), "environment": credential.environment, "error": "\(error)",
            ])
            try await surviving(chunk) { try await markBroken(credential, reason: "CredentialUnusable") }
            try await surviving(chunk) { try await queue.release(chunk, after: .zero) }
            return
        }

        // A badge change is stored for every target now, atomically, before anything is sent:
        // two pushes to one device, or a reset through the device API, never lose an update.
        let targets = try await surviving(chunk) {
            try await BadgeReservation.apply(notification.badge, to: loaded.targets, appID: chunk.appID, pool: pool,
                                             priority: chunk.priority)
        }
        var run = ChunkRun(targets: targets)
        var rounds = 0
        while true {
            if Date() >= loaded.expiresAt { run.finishWaiting(as: .expired, reason: "Expired") }
            let round = run.nextRound()
            let sentAt = Date()
            let results = await sendRound(round, notification: notification, sender: sender, lane: chunk.lane,
                                          appKey: credential.appKey)
            for (target, step) in results { run.record(target, step: step) }
            let (outcomes, retries) = run.takeOutcomes()
            let broken = run.brokenCredential
            let written = try await write(&chunk, outcomes: early + outcomes, retries: retries, sentAt: sentAt,
                                          chunkComplete: run.isComplete && broken == nil)
            count(written, retries: retries, appKey: credential.appKey)
            early = []
            if written.messageState == .withdrawn {
                _ = try await write(&chunk, outcomes: [], retries: 0, sentAt: sentAt, chunkComplete: true)
                return
            }
            if let broken {
                logger.error("APNs refused the app's credential; its deliveries to this environment pause until a new one is uploaded", [
                    "app_id": String(chunk.appID), "environment": credential.environment, "reason": broken,
                ])
                try await surviving(chunk) { try await markBroken(credential, reason: broken) }
                try await surviving(chunk) { try await queue.release(chunk, after: .zero) }
                return
            }
            if run.isComplete { return }
            rounds += 1
            let overBudget = retryPacer.wait(app: chunk.appID)
            let delay = max(backoff.delay(retry: rounds, jitter: Double.random(in: 0...1)), overBudget)
            let untilExpiry = Duration.milliseconds(Int64(saturating: max(loaded.expiresAt.timeIntervalSinceNow, 0) * 1000))
            if overBudget > .zero || (rounds >= roundsPerLease && delay < untilExpiry) {
                // Back at the expiration at the latest, to record the rest `expired` then.
                try await surviving(chunk) { try await queue.release(chunk, after: min(delay, untilExpiry)) }
                return
            }
            try await Task.sleep(for: min(delay, untilExpiry))
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

    /// Sends a round's notifications as one batch (the client bounds what is in flight) and
    /// pairs each result with its target. The targeted lane's go ahead of the broadcasts'
    /// waiting in the same client (the same app's).
    private func sendRound(_ targets: [ChunkRun.Target], notification: PreparedNotification, sender: any NotificationSender,
                           lane: Lane, appKey: String) async -> [(ChunkRun.Target, DeliveryStep)] {
        let app = metrics.bounded("app_key", appKey)
        let notifications = targets.map { target in
            let built = notification.notification(deviceID: target.deviceID, storedBadge: target.storedBadge)
            return APNSNotification(
                deviceToken: target.token, topic: built.topic, pushType: APNSPushType(rawValue: built.pushType) ?? .alert,
                priority: APNSPriority(rawValue: built.priority) ?? .immediate, expiration: built.expiration,
                collapseID: built.collapseID, apnsID: built.apnsID, payload: built.payload)
        }
        let results = await sender.send(notifications, urgent: lane == .targeted)
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

    private func markBroken(_ credential: AppCredential, reason: String) async throws {
        try await pool.withConnection { connection in
            try credential.markBroken(reason: reason, on: connection)
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
