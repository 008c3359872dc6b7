import Foundation
import PushCore
@testable import PushPipeline
import RelayCore
import Testing

/// Every way a leased chunk ends, decided without a database, a client or a clock.
@Suite struct ChunkLifecycleTests {
    /// The delivery a test "prepares": the executor's notification and client, here a name.
    typealias Lifecycle = ChunkLifecycle<String>

    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    private let a = ChunkRun.Target(deviceID: 1, token: "aa", storedBadge: 0)
    private let b = ChunkRun.Target(deviceID: 2, token: "bb", storedBadge: 0)
    private let gone = ChunkRun.Outcome(deviceID: 9, outcome: .failed, reason: "DeviceDeleted", attempts: 0)
    private let credential = AppCredential(appID: 7, appKey: "app7", environment: "production", topic: "com.example", version: "v1",
                                           isBroken: false, auth: "token", keyID: "K", teamID: "T", sealedSecret: [])

    private func chunk(_ state: MessageState = .sending, expiresIn ttl: TimeInterval = 60, credential: AppCredential?? = .none,
                       targets: [ChunkRun.Target]? = nil, unsendable: [ChunkRun.Outcome] = []) -> LoadedChunk {
        LoadedChunk(messageState: state, body: "{}", environment: "production", acceptedAt: Int(t0.timeIntervalSince1970),
                    expiresAt: t0.addingTimeInterval(ttl), collapseID: nil, credential: (credential ?? self.credential).map(ChunkCredential.apns),
                    targets: targets ?? [a, b], unsendable: unsendable)
    }

    private func lifecycle(roundsPerLease: Int = 4) -> Lifecycle {
        Lifecycle(roundsPerLease: roundsPerLease, backoff: Backoff(base: .milliseconds(100), cap: .seconds(10)))
    }

    private func unsent(_ targets: [ChunkRun.Target], _ outcome: DeliveryOutcome, _ reason: String?, attempts: Int = 0) -> [ChunkRun.Outcome] {
        targets.map { ChunkRun.Outcome(deviceID: $0.deviceID, outcome: outcome, reason: reason, attempts: attempts) }
    }

    private func batch(_ outcomes: [ChunkRun.Outcome], retries: Int = 0, at sentAt: Date, complete: Bool = true) -> Lifecycle.Batch {
        Lifecycle.Batch(outcomes: outcomes, retries: retries, sentAt: sentAt, chunkComplete: complete)
    }

    /// A lifecycle of `chunk` up to its first round's send.
    private func sending(_ loaded: LoadedChunk, roundsPerLease: Int = 4) -> Lifecycle {
        var lifecycle = lifecycle(roundsPerLease: roundsPerLease)
        #expect(lifecycle.loaded(loaded, now: t0) == .prepareDelivery(.apns(credential)))
        #expect(lifecycle.deliveryPrepared(.ready("client")) == .reserveBadges(loaded.targets, "client"))
        #expect(lifecycle.badgesReserved(loaded.targets, now: t0) == .send(loaded.targets, "client"))
        return lifecycle
    }

    // MARK: Ended before anything is sent

    @Test func aWithdrawnMessageClosesTheChunkWithNothingWritten() {
        var lifecycle = lifecycle()
        #expect(lifecycle.loaded(chunk(.withdrawn), now: t0) == .finish(batch([], at: t0)))
        #expect(lifecycle.written(.withdrawn) == .done)
    }

    @Test func anExpiredMessageRecordsEveryDeviceExpired() {
        var lifecycle = lifecycle()
        let loaded = chunk(expiresIn: 0, unsendable: [gone])
        #expect(lifecycle.loaded(loaded, now: t0) == .finish(batch([gone] + unsent([a, b], .expired, "Expired"), at: t0)))
        #expect(lifecycle.written(.done) == .done)
    }

    @Test func withoutACredentialEveryDeviceFails() {
        var lifecycle = lifecycle()
        #expect(lifecycle.loaded(chunk(credential: .some(nil)), now: t0) == .finish(batch(unsent([a, b], .failed, "NoCredentials"), at: t0)))
        #expect(lifecycle.written(.done) == .done)
    }

    @Test func aBrokenCredentialSendsTheChunkBackToWait() {
        var broken = credential
        broken.isBroken = true
        var lifecycle = lifecycle()
        #expect(lifecycle.loaded(chunk(credential: broken), now: t0) == .release(after: .zero))
    }

    @Test func aBodyThatMakesNoNotificationFailsEveryDeviceAsOfTheLoad() {
        var lifecycle = lifecycle()
        _ = lifecycle.loaded(chunk(unsendable: [gone]), now: t0)
        #expect(lifecycle.deliveryPrepared(.invalidBody) == .finish(batch([gone] + unsent([a, b], .failed, "InvalidBody"), at: t0)))
        #expect(lifecycle.written(.done) == .done)
    }

    @Test func aCredentialThatMakesNoClientIsPausedAndTheChunkGoesBack() {
        var lifecycle = lifecycle()
        _ = lifecycle.loaded(chunk(), now: t0)
        #expect(lifecycle.deliveryPrepared(.senderUnusable("bad key")) == .pauseCredential(.apns(credential), .unusable("bad key")))
        #expect(Lifecycle.CredentialProblem.unusable("bad key").reason == "CredentialUnusable")
        #expect(lifecycle.credentialPaused() == .release(after: .zero))
    }

    // MARK: Rounds

    @Test func aRoundAllAcceptedIsWrittenWithTheUnsendableAndEndsTheChunk() {
        var lifecycle = sending(chunk(unsendable: [gone]))
        let record = lifecycle.answered([(a, .record(.sent, reason: nil)), (b, .record(.sent, reason: nil))])
        #expect(record == .record(batch([gone] + unsent([a, b], .sent, nil, attempts: 1), at: t0), "client"))
        #expect(lifecycle.written(.done) == .done)
    }

    @Test func aChunkWithNoDeviceToSendToWritesWhatItHasWithoutSending() {
        var lifecycle = lifecycle()
        _ = lifecycle.loaded(chunk(targets: [], unsendable: [gone]), now: t0)
        _ = lifecycle.deliveryPrepared(.ready("client"))
        #expect(lifecycle.badgesReserved([], now: t0) == .record(batch([gone], at: t0), "client"))
        #expect(lifecycle.written(.done) == .done)
    }

    @Test func aWithdrawalSeenAfterARoundClosesTheChunk() {
        var lifecycle = sending(chunk())
        _ = lifecycle.answered([(a, .record(.sent, reason: nil)), (b, .retry)])
        #expect(lifecycle.written(.withdrawn) == .finish(batch([], at: t0)))
        #expect(lifecycle.written(.withdrawn) == .done)
    }

    @Test func aCredentialAPNsRefusesIsPausedAndTheRestWaits() {
        var lifecycle = sending(chunk())
        let record = lifecycle.answered([(a, .record(.sent, reason: nil)), (b, .credentialBroken(reason: "InvalidProviderToken"))])
        #expect(record == .record(batch([ChunkRun.Outcome(deviceID: 1, outcome: .sent, reason: nil, attempts: 1)], at: t0, complete: false),
                                  "client"))
        #expect(lifecycle.written(.sending) == .pauseCredential(.apns(credential), .refused("InvalidProviderToken")))
        #expect(lifecycle.credentialPaused() == .release(after: .zero))
    }

    @Test func aRetryWaitsOutItsBackoffInTheSlotAndGoesAgain() {
        var lifecycle = sending(chunk())
        let record = lifecycle.answered([(a, .record(.sent, reason: nil)), (b, .retry)])
        #expect(record == .record(batch([ChunkRun.Outcome(deviceID: 1, outcome: .sent, reason: nil, attempts: 1)], retries: 1, at: t0,
                                        complete: false), "client"))
        #expect(lifecycle.written(.sending) == .takeRetryBudget)
        #expect(lifecycle.retryBudgetTaken(overBudget: .zero, jitter: 1, now: t0) == .backOff(.milliseconds(100)))
        let later = t0.addingTimeInterval(0.1)
        #expect(lifecycle.wokeUp(now: later) == .send([b], "client"))
        #expect(lifecycle.answered([(b, .record(.sent, reason: nil))])
            == .record(batch([ChunkRun.Outcome(deviceID: 2, outcome: .sent, reason: nil, attempts: 2)], at: later), "client"))
        #expect(lifecycle.written(.done) == .done)
    }

    @Test func aRetryWaitsAtLeastAsLongAsTheServiceAsked() {
        var lifecycle = sending(chunk(), roundsPerLease: 2)
        // FCM's Retry-After (3 s, the longest of the round) over the 100 ms backoff.
        _ = lifecycle.answered([(a, .retryNotBefore(.seconds(3))), (b, .retryNotBefore(.seconds(1)))])
        #expect(lifecycle.written(.sending) == .takeRetryBudget)
        #expect(lifecycle.retryBudgetTaken(overBudget: .zero, jitter: 1, now: t0) == .backOff(.seconds(3)))
        // The next round asked for nothing: the backoff alone.
        let later = t0.addingTimeInterval(3)
        #expect(lifecycle.wokeUp(now: later) == .send([a, b], "client"))
        _ = lifecycle.answered([(a, .retry), (b, .record(.sent, reason: nil))])
        _ = lifecycle.written(.sending)
        #expect(lifecycle.retryBudgetTaken(overBudget: .zero, jitter: 1, now: later) == .release(after: .milliseconds(200)))
    }

    @Test func aRetryBeyondTheAppsBudgetGoesBackToTheQueueAtOnce() {
        var lifecycle = sending(chunk())
        _ = lifecycle.answered([(a, .retry), (b, .retry)])
        _ = lifecycle.written(.sending)
        #expect(lifecycle.retryBudgetTaken(overBudget: .seconds(2), jitter: 1, now: t0) == .release(after: .seconds(2)))
    }

    @Test func afterItsRoundsPerLeaseTheChunkWaitsInTheQueueNotInItsSlot() {
        var lifecycle = sending(chunk(), roundsPerLease: 2)
        _ = lifecycle.answered([(a, .retry), (b, .record(.sent, reason: nil))])
        #expect(lifecycle.written(.sending) == .takeRetryBudget)
        #expect(lifecycle.retryBudgetTaken(overBudget: .zero, jitter: 1, now: t0) == .backOff(.milliseconds(100)))
        let later = t0.addingTimeInterval(0.1)
        #expect(lifecycle.wokeUp(now: later) == .send([a], "client"))
        _ = lifecycle.answered([(a, .retry)])
        #expect(lifecycle.written(.sending) == .takeRetryBudget)
        // The second retry round: its backoff (doubled) is spent in the queue.
        #expect(lifecycle.retryBudgetTaken(overBudget: .zero, jitter: 1, now: later) == .release(after: .milliseconds(200)))
    }

    @Test func theBackoffEndsAtTheExpirationAndTheRestIsRecordedExpired() {
        var lifecycle = sending(chunk(expiresIn: 0.0625))
        _ = lifecycle.answered([(a, .retry), (b, .record(.failed, reason: "BadTopic"))])
        _ = lifecycle.written(.sending)
        // 100 ms of backoff, 62.5 ms to the expiration: the wait is cut (to whole milliseconds), in the slot.
        #expect(lifecycle.retryBudgetTaken(overBudget: .zero, jitter: 1, now: t0) == .backOff(.milliseconds(62)))
        let expired = t0.addingTimeInterval(0.0625)
        #expect(lifecycle.wokeUp(now: expired) == .record(batch(unsent([a], .expired, "Expired", attempts: 1), at: expired), "client"))
        #expect(lifecycle.written(.done) == .done)
    }

    @Test func aReleaseIsNeverLaterThanTheExpiration() {
        var lifecycle = sending(chunk(expiresIn: 1))
        _ = lifecycle.answered([(a, .retry), (b, .retry)])
        _ = lifecycle.written(.sending)
        #expect(lifecycle.retryBudgetTaken(overBudget: .seconds(5), jitter: 1, now: t0) == .release(after: .seconds(1)))
    }
}
