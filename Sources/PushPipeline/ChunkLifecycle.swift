import Foundation
import PushCore
import RelayCore

/// One leased chunk from its load to its last statement: what to write, when to send, back
/// off, pause the app's credential or give the chunk back to the queue. Pure: `ChunkSender`
/// performs each `Action` and reports what came of it as the next event, with the time.
///
/// A loaded chunk ends at once when its message is no longer sending (withdrawn), expired, has
/// no credential or no valid body; waits in the queue while its credential is broken; then
/// goes in rounds (`ChunkRun`): send, write the outcomes, and for devices APNs asked to retry
/// back off in the slot (at least as long as the service asked), up to `roundsPerLease` rounds,
/// or go back to the queue for the backoff (at once beyond the app's retry budget), never past
/// the message's expiration, when the rest are recorded `expired`.
///
/// `Delivery` is what the executor sends with (the prepared notification or FCM message and
/// the client): the lifecycle only carries it from `deliveryPrepared` to the actions that use it.
struct ChunkLifecycle<Delivery: Sendable>: Sendable {
    /// Outcomes to write in one batch (`OutcomeWriter`).
    struct Batch: Sendable, Equatable {
        var outcomes: [ChunkRun.Outcome]
        var retries: Int
        var sentAt: Date
        /// Every device of the chunk has its outcome with this batch.
        var chunkComplete: Bool
    }

    /// Why the credential (the app's APNs one for the environment, or its FCM one) is paused.
    enum CredentialProblem: Sendable, Equatable {
        /// No client can be built from it (a bad key or certificate): the error.
        case unusable(String)
        /// APNs or FCM refused it: its reason.
        case refused(String)

        /// What `broken_reason` records.
        var reason: String {
            switch self {
            case .unusable: "CredentialUnusable"
            case .refused(let reason): reason
            }
        }
    }

    /// What became of `prepareDelivery`.
    enum Prepared: Sendable {
        case ready(Delivery)
        /// The stored body no longer makes a notification.
        case invalidBody
        /// The credential makes no client: the error.
        case senderUnusable(String)
    }

    enum Action: Sendable {
        /// Build the notification (for an APNs credential's topic, or FCM's message), then the
        /// client: `deliveryPrepared`.
        case prepareDelivery(ChunkCredential)
        /// Store the notification's badge change for every target before anything is sent
        /// (two pushes to one device never lose an update): `badgesReserved`.
        case reserveBadges([ChunkRun.Target], Delivery)
        /// Send a round: `answered`.
        case send([ChunkRun.Target], Delivery)
        /// Write a round's outcomes, counted in the app's metrics: `written`.
        case record(Batch, Delivery)
        /// Write the last batch: `written`, then the chunk is done.
        case finish(Batch)
        /// Spend a retry round of the app's budget (`RetryPacer`): `retryBudgetTaken`.
        case takeRetryBudget
        /// Wait in the slot: `wokeUp`.
        case backOff(Duration)
        /// Mark the credential broken (the chunks it sends wait for a new one): `credentialPaused`.
        case pauseCredential(ChunkCredential, CredentialProblem)
        /// Give the chunk back to the queue, to be leased again after the delay; the lifecycle ends.
        case release(after: Duration)
        /// The lifecycle ends.
        case done
    }

    /// The chunk before its first round.
    private struct Loaded: Sendable {
        var expiresAt: Date
        var credential: ChunkCredential
        var targets: [ChunkRun.Target]
        /// Outcomes of the unsendable devices, written with the first round's.
        var unsendable: [ChunkRun.Outcome]
        var loadedAt: Date
    }

    /// The chunk in its rounds.
    private struct Rounds: Sendable {
        var expiresAt: Date
        var credential: ChunkCredential
        var delivery: Delivery
        var run: ChunkRun
        /// Outcomes to write with the next round's (the unsendable devices', at first).
        var early: [ChunkRun.Outcome]
        /// Retry rounds so far.
        var retryRounds = 0
        /// When the current round began.
        var sentAt: Date
    }

    /// Where the chunk is: each state but `leased` and `done` waits for what its action reports.
    private enum State: Sendable {
        case leased
        case preparing(Loaded)
        case reservingBadges(Loaded, Delivery)
        case sending(Rounds)
        case recording(Rounds)
        case pacing(Rounds)
        case backingOff(Rounds)
        case pausing
        case finishing
        case done
    }

    let roundsPerLease: Int
    let backoff: Backoff
    private var state = State.leased

    init(roundsPerLease: Int, backoff: Backoff) {
        self.roundsPerLease = roundsPerLease
        self.backoff = backoff
    }

    /// The chunk's message, credential and devices were read.
    mutating func loaded(_ chunk: LoadedChunk, now: Date) -> Action {
        guard case .leased = state else { return unexpected("loaded") }
        guard chunk.messageState.isSending else {
            // Withdrawn (or already finished): what is not sent now never will be.
            return finish(Batch(outcomes: [], retries: 0, sentAt: now, chunkComplete: true))
        }
        guard chunk.expiresAt > now else {
            return finishAll(chunk.targets, unsendable: chunk.unsendable, as: .expired, reason: "Expired", at: now)
        }
        guard let credential = chunk.credential else {
            return finishAll(chunk.targets, unsendable: chunk.unsendable, as: .failed, reason: "NoCredentials", at: now)
        }
        guard !credential.isBroken else {
            // Leased just before the credential broke: it waits with the other chunks it sends.
            state = .done
            return .release(after: .zero)
        }
        let loaded = Loaded(expiresAt: chunk.expiresAt, credential: credential, targets: chunk.targets, unsendable: chunk.unsendable,
                            loadedAt: now)
        state = .preparing(loaded)
        return .prepareDelivery(credential)
    }

    mutating func deliveryPrepared(_ prepared: Prepared) -> Action {
        guard case .preparing(let loaded) = state else { return unexpected("deliveryPrepared") }
        switch prepared {
        case .ready(let delivery):
            state = .reservingBadges(loaded, delivery)
            return .reserveBadges(loaded.targets, delivery)
        case .invalidBody:
            return finishAll(loaded.targets, unsendable: loaded.unsendable, as: .failed, reason: "InvalidBody", at: loaded.loadedAt)
        case .senderUnusable(let error):
            state = .pausing
            return .pauseCredential(loaded.credential, .unusable(error))
        }
    }

    /// The badges are stored; `targets` carry each device's badge from before.
    mutating func badgesReserved(_ targets: [ChunkRun.Target], now: Date) -> Action {
        guard case .reservingBadges(let loaded, let delivery) = state else { return unexpected("badgesReserved") }
        return startRound(Rounds(expiresAt: loaded.expiresAt, credential: loaded.credential, delivery: delivery,
                                 run: ChunkRun(targets: targets), early: loaded.unsendable, sentAt: now), now: now)
    }

    /// APNs answered the round: each target with what to do about it.
    mutating func answered(_ steps: [(ChunkRun.Target, DeliveryStep)]) -> Action {
        guard case .sending(var rounds) = state else { return unexpected("answered") }
        for (target, step) in steps { rounds.run.record(target, step: step) }
        return record(&rounds)
    }

    /// A batch was written; the message is now in `messageState`.
    mutating func written(_ messageState: MessageState) -> Action {
        switch state {
        case .finishing:
            state = .done
            return .done
        case .recording(var rounds):
            if messageState == .withdrawn {
                // Withdrawn meanwhile: the rest is never sent.
                return finish(Batch(outcomes: [], retries: 0, sentAt: rounds.sentAt, chunkComplete: true))
            }
            if let broken = rounds.run.brokenCredential {
                state = .pausing
                return .pauseCredential(rounds.credential, .refused(broken))
            }
            guard !rounds.run.isComplete else {
                state = .done
                return .done
            }
            rounds.retryRounds += 1
            state = .pacing(rounds)
            return .takeRetryBudget
        default:
            return unexpected("written")
        }
    }

    /// The app's retry budget allows the next round after `overBudget` (zero within it).
    ///
    /// - Parameter jitter: the backoff's, in 0...1.
    mutating func retryBudgetTaken(overBudget: Duration, jitter: Double, now: Date) -> Action {
        guard case .pacing(let rounds) = state else { return unexpected("retryBudgetTaken") }
        // Not before the service asked (FCM's `Retry-After`), nor before the budget allows.
        let delay = max(backoff.delay(retry: rounds.retryRounds, jitter: jitter), overBudget, rounds.run.retryAfter ?? .zero)
        let untilExpiry = Duration.milliseconds(Int64(saturating: max(rounds.expiresAt.timeIntervalSince(now), 0) * 1000))
        if overBudget > .zero || (rounds.retryRounds >= roundsPerLease && delay < untilExpiry) {
            // Back at the expiration at the latest, to record the rest `expired` then.
            state = .done
            return .release(after: min(delay, untilExpiry))
        }
        state = .backingOff(rounds)
        return .backOff(min(delay, untilExpiry))
    }

    /// The backoff is over.
    mutating func wokeUp(now: Date) -> Action {
        guard case .backingOff(let rounds) = state else { return unexpected("wokeUp") }
        return startRound(rounds, now: now)
    }

    /// The credential is marked broken.
    mutating func credentialPaused() -> Action {
        guard case .pausing = state else { return unexpected("credentialPaused") }
        state = .done
        return .release(after: .zero)
    }

    private mutating func startRound(_ rounds: Rounds, now: Date) -> Action {
        var rounds = rounds
        if now >= rounds.expiresAt { rounds.run.finishWaiting(as: .expired, reason: "Expired") }
        rounds.sentAt = now
        let round = rounds.run.nextRound()
        // Nothing left to send (expired, or no device to send to): what there is, is written.
        guard !round.isEmpty else { return record(&rounds) }
        state = .sending(rounds)
        return .send(round, rounds.delivery)
    }

    private mutating func record(_ rounds: inout Rounds) -> Action {
        let (outcomes, retries) = rounds.run.takeOutcomes()
        let batch = Batch(outcomes: rounds.early + outcomes, retries: retries, sentAt: rounds.sentAt,
                          chunkComplete: rounds.run.isComplete && rounds.run.brokenCredential == nil)
        rounds.early = []
        state = .recording(rounds)
        return .record(batch, rounds.delivery)
    }

    private mutating func finish(_ batch: Batch) -> Action {
        state = .finishing
        return .finish(batch)
    }

    /// Finishes the chunk before any attempt: every target gets `outcome`.
    private mutating func finishAll(_ targets: [ChunkRun.Target], unsendable: [ChunkRun.Outcome], as outcome: DeliveryOutcome,
                                    reason: String, at now: Date) -> Action {
        let outcomes = unsendable + targets.map {
            ChunkRun.Outcome(deviceID: $0.deviceID, outcome: outcome, reason: reason, attempts: 0)
        }
        return finish(Batch(outcomes: outcomes, retries: 0, sentAt: now, chunkComplete: true))
    }

    /// An event its state does not expect: the executor's bug.
    private func unexpected(_ event: String) -> Action {
        preconditionFailure("ChunkLifecycle: \(event) in \(state)")
    }
}

extension ChunkLifecycle.Action: Equatable where Delivery: Equatable {}
extension ChunkLifecycle.Prepared: Equatable where Delivery: Equatable {}
