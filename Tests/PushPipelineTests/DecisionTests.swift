import APNSClient
import FCMClient
import Foundation
import PostgresStore
@testable import PushPipeline
import Testing
import RelayCore

/// The pure parts of the pipeline: no database, no sockets.
@Suite struct DecisionTests {
    /// FCM's answers in the pipeline's terms (docs/android.md's table).
    @Test func fcmAnswersBecomeDeliverySteps() {
        func rejected(_ status: Int, _ code: String, tokenProblem: Bool = false, retryAfter: Double? = nil) -> FCMResult {
            .rejected(status: status, error: FCMErrorCode(code), message: "", tokenProblem: tokenProblem, retryAfter: retryAfter)
        }
        #expect(DeliveryStep(FCMResult.accepted(name: "projects/p/messages/1")) == .record(.sent, reason: nil))
        #expect(DeliveryStep(rejected(404, "UNREGISTERED")) == .invalidate(reason: "UNREGISTERED", since: nil))
        #expect(DeliveryStep(rejected(400, "INVALID_ARGUMENT", tokenProblem: true)) == .invalidate(reason: "INVALID_ARGUMENT", since: nil))
        #expect(DeliveryStep(rejected(403, "SENDER_ID_MISMATCH")) == .invalidate(reason: "SENDER_ID_MISMATCH", since: nil))
        #expect(DeliveryStep(rejected(503, "UNAVAILABLE")) == .retry)
        #expect(DeliveryStep(rejected(429, "QUOTA_EXCEEDED", retryAfter: 7)) == .retryNotBefore(.seconds(7)))
        #expect(DeliveryStep(rejected(429, "QUOTA_EXCEEDED", retryAfter: 1e12)) == .retryNotBefore(.seconds(86_400)))
        #expect(DeliveryStep(FCMResult.failed(.transport(.connectionFailed("reset")))) == .retry)
        #expect(DeliveryStep(FCMResult.failed(.transport(.expired))) == .record(.expired, reason: "Expired"))
        #expect(DeliveryStep(rejected(401, "UNAUTHENTICATED")) == .credentialBroken(reason: "UNAUTHENTICATED"))
        #expect(DeliveryStep(FCMResult.failed(.accessToken("invalid_grant", broken: true))) == .credentialBroken(reason: "invalid_grant"))
        #expect(DeliveryStep(rejected(400, "INVALID_ARGUMENT")) == .record(.failed, reason: "INVALID_ARGUMENT"))
    }

    @Test func backoffDoublesUpToItsCapWithJitterInTheUpperHalf() {
        let backoff = Backoff(base: .milliseconds(100), cap: .seconds(1))
        #expect(backoff.delay(retry: 1, jitter: 1) == .milliseconds(100))
        #expect(backoff.delay(retry: 2, jitter: 1) == .milliseconds(200))
        #expect(backoff.delay(retry: 4, jitter: 1) == .milliseconds(800))
        #expect(backoff.delay(retry: 5, jitter: 1) == .seconds(1))
        #expect(backoff.delay(retry: 50, jitter: 1) == .seconds(1))
        #expect(backoff.delay(retry: 1, jitter: 0) == .milliseconds(50))
        #expect(backoff.delay(retry: 3, jitter: 0.5) == .milliseconds(300))
    }

    @Test func eachLaneHasSlotsOfItsOwn() {
        var scheduler = LaneScheduler(broadcastSlots: 3, targetedSlots: 2)
        for app in [7, 8, 9] as [Int64] {
            #expect(reserve(&scheduler, .broadcast))
            scheduler.servedBroadcast(appID: app)
        }
        // Three broadcasts run: no fourth, and the targeted slots are still free.
        #expect(!reserve(&scheduler, .broadcast))
        #expect(scheduler.lastBroadcastApp == 9)
        #expect(reserve(&scheduler, .targeted))
        #expect(reserve(&scheduler, .targeted))
        #expect(!reserve(&scheduler, .targeted), "both targeted slots busy: no lease")
        // A lane's free slot is its own: a finished broadcast makes no room for a targeted chunk.
        scheduler.finished(.broadcast)
        #expect(!reserve(&scheduler, .targeted))
        #expect(reserve(&scheduler, .broadcast))
        scheduler.finished(.targeted)
        #expect(reserve(&scheduler, .targeted))
        #expect(scheduler.targetedRunning == 2 && scheduler.broadcastRunning == 3)
    }

    /// `reserve` outside `#expect`, which cannot call a mutating method.
    private func reserve(_ scheduler: inout LaneScheduler, _ lane: Lane) -> Bool {
        scheduler.reserve(lane)
    }

    @Test func apnsResultsBecomeSteps() {
        let id = UUID()
        #expect(DeliveryStep(.accepted(apnsID: id)) == .record(.sent, reason: nil))
        let since = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(DeliveryStep(.rejected(status: 410, reason: .unregistered, timestamp: since)) == .invalidate(reason: "Unregistered", since: since))
        #expect(DeliveryStep(.rejected(status: 400, reason: .badDeviceToken, timestamp: nil)) == .invalidate(reason: "BadDeviceToken", since: nil))
        #expect(DeliveryStep(.rejected(status: 400, reason: .deviceTokenNotForTopic, timestamp: nil))
            == .invalidate(reason: "DeviceTokenNotForTopic", since: nil))
        #expect(DeliveryStep(.rejected(status: 429, reason: .tooManyRequests, timestamp: nil)) == .retry)
        #expect(DeliveryStep(.rejected(status: 500, reason: .internalServerError, timestamp: nil)) == .retry)
        #expect(DeliveryStep(.rejected(status: 503, reason: .serviceUnavailable, timestamp: nil)) == .retry)
        #expect(DeliveryStep(.failed(.connectionFailed("reset"))) == .retry)
        #expect(DeliveryStep(.rejected(status: 403, reason: .expiredProviderToken, timestamp: nil)) == .retry)
        #expect(DeliveryStep(.rejected(status: 403, reason: .invalidProviderToken, timestamp: nil))
            == .credentialBroken(reason: "InvalidProviderToken"))
        #expect(DeliveryStep(.rejected(status: 400, reason: .badTopic, timestamp: nil)) == .record(.failed, reason: "BadTopic"))
        #expect(DeliveryStep(.rejected(status: 413, reason: .payloadTooLarge, timestamp: nil)) == .record(.failed, reason: "PayloadTooLarge"))
        #expect(DeliveryStep(.failed(.expired)) == .record(.expired, reason: "Expired"))
    }

    private let a = ChunkRun.Target(deviceID: 1, token: "aa", storedBadge: 0)
    private let b = ChunkRun.Target(deviceID: 2, token: "bb", storedBadge: 3)
    private let c = ChunkRun.Target(deviceID: 3, token: "cc", storedBadge: 0)

    @Test func aChunkRunRetriesOnlyWhatAPNsAskedToRetry() {
        var run = ChunkRun(targets: [a, b, c])
        #expect(run.nextRound() == [a, b, c])
        run.record(a, step: .record(.sent, reason: nil))
        run.record(b, step: .retry)
        run.record(c, step: .invalidate(reason: "Unregistered", since: nil))
        #expect(!run.isComplete)
        let first = run.takeOutcomes()
        #expect(first.retries == 1)
        #expect(first.outcomes.map(\.deviceID) == [1, 3])
        #expect(first.outcomes[0].attempts == 1)
        #expect(first.outcomes[1].outcome == .invalidated)

        #expect(run.nextRound() == [b])
        run.record(b, step: .record(.sent, reason: nil))
        #expect(run.isComplete)
        let second = run.takeOutcomes()
        #expect(second.retries == 0)
        #expect(second.outcomes == [ChunkRun.Outcome(deviceID: 2, outcome: .sent, reason: nil, attempts: 2)])
    }

    @Test func aBrokenCredentialStopsTheRunAndKeepsTheDevicesForLater() {
        var run = ChunkRun(targets: [a, b])
        _ = run.nextRound()
        run.record(a, step: .record(.sent, reason: nil))
        run.record(b, step: .credentialBroken(reason: "InvalidProviderToken"))
        #expect(run.brokenCredential == "InvalidProviderToken")
        #expect(run.nextRound() == [], "nothing more is sent")
        #expect(!run.isComplete, "b has no outcome: the chunk waits")
        #expect(run.takeOutcomes().outcomes.map(\.deviceID) == [1])
    }

    @Test func expiryFinishesWhatIsStillWaiting() {
        var run = ChunkRun(targets: [a, b])
        _ = run.nextRound()
        run.record(a, step: .retry)
        run.record(b, step: .record(.failed, reason: "BadTopic"))
        run.finishWaiting(as: .expired, reason: "Expired")
        #expect(run.isComplete)
        let outcomes = run.takeOutcomes().outcomes
        #expect(outcomes.map(\.outcome) == [.failed, .expired])
        #expect(outcomes[1].attempts == 1)
    }

    @Test func sqlArraysQuoteTextAndKeepNulls() {
        #expect(SQLArray.bigint([1, 22, 333]) == "{1,22,333}")
        #expect(SQLArray.int([1, nil]) == "{1,NULL}")
        #expect(SQLArray.text(["a", "b\"c", "d\\e", nil, ""]) == #"{"a","b\"c","d\\e",NULL,""}"#)
    }

    @Test func defaultsGrowWithTheCoreCount() {
        let small = PipelineConfiguration(cores: 1)
        #expect(small.slots == 4 && small.targetedSlots == 128 && small.apnsConnections == 2 && small.chunkSize == 2000)
        let big = PipelineConfiguration(cores: 16)
        #expect(big.slots == 32 && big.targetedSlots == 1024 && big.apnsConnections == 8)
        #expect(PipelineConfiguration(cores: 64).apnsConnections == 8)
    }

    @Test func configurationReadsTheEnvironment() throws {
        let defaults = try PipelineConfiguration.parse([:])
        #expect(defaults == PipelineConfiguration())
        #expect(defaults.productionURL.absoluteString == "https://api.push.apple.com")
        let environment = [
            "PUSHRELAY_APNS_PRODUCTION_URL": "https://127.0.0.1:2197", "PUSHRELAY_APNS_SANDBOX_URL": "https://127.0.0.1:2198",
            "PUSHRELAY_APNS_CA_FILE": "/tmp/ca.pem", "PUSHRELAY_WORKER_SLOTS": "4", "PUSHRELAY_CHUNK_SIZE": "100",
            "PUSHRELAY_CHUNK_LEASE_SECONDS": "5",
        ]
        let tuned = try PipelineConfiguration.parse(environment, relay: try RelayConfiguration.parse(environment))
        #expect(tuned.productionURL.absoluteString == "https://127.0.0.1:2197")
        #expect(tuned.url(for: "sandbox").absoluteString == "https://127.0.0.1:2198")
        #expect(tuned.caFile == "/tmp/ca.pem")
        #expect(tuned.slots == 4 && tuned.targetedSlots == 128 && tuned.chunkSize == 100 && tuned.leaseSeconds == 5)
        let targeted = try PipelineConfiguration.parse(["PUSHRELAY_WORKER_SLOTS": "4", "PUSHRELAY_WORKER_TARGETED_SLOTS": "3"])
        #expect(targeted.slots == 4 && targeted.targetedSlots == 3)
        #expect(throws: PipelineConfiguration.Error.self) { try PipelineConfiguration.parse(["PUSHRELAY_WORKER_SLOTS": "0"]) }
        #expect(throws: PipelineConfiguration.Error.self) { try PipelineConfiguration.parse(["PUSHRELAY_WORKER_TARGETED_SLOTS": "0"]) }
        #expect(defaults.apnsIdleTimeout == 300 && defaults.apnsMaxConnectionsTotal == PipelineConfiguration.defaultMaxConnectionsTotal)
        let connections = try PipelineConfiguration.parse(["PUSHRELAY_APNS_IDLE_TIMEOUT_SECONDS": "60", "PUSHRELAY_APNS_MAX_CONNECTIONS_TOTAL": "500"])
        #expect(connections.apnsIdleTimeout == 60 && connections.apnsMaxConnectionsTotal == 500)
        #expect(throws: PipelineConfiguration.Error.self) { try PipelineConfiguration.parse(["PUSHRELAY_APNS_IDLE_TIMEOUT_SECONDS": "0"]) }
        #expect(throws: PipelineConfiguration.Error.self) { try PipelineConfiguration.parse(["PUSHRELAY_APNS_MAX_CONNECTIONS_TOTAL": "none"]) }
    }

    @Test func nowOrNeverStillGetsAQueueDeadline() {
        #expect(QueueDeadline.seconds(timeToLive: 0) == 60)
        #expect(QueueDeadline.seconds(timeToLive: 86_400) == 86_400)
    }
}

/// The worker's wake-up: NOTIFYs and finished chunks end its wait early; without them it
/// wakes after the poll interval.
@Suite struct WakeSignalTests {
    @Test func aSignalGivenBeforeTheWaitIsKept() async {
        let wake = WakeSignal()
        wake.signal()
        let started = ContinuousClock.now
        await wake.wait(timeout: .seconds(30))
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func aSignalEndsAWaitInProgress() async {
        let wake = WakeSignal()
        let started = ContinuousClock.now
        async let waited: Void = wake.wait(timeout: .seconds(30))
        try? await Task.sleep(for: .milliseconds(20))
        wake.signal()
        await waited
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func withoutASignalTheWaitEndsAtTheTimeout() async {
        let wake = WakeSignal()
        let started = ContinuousClock.now
        await wake.wait(timeout: .milliseconds(50))
        #expect(ContinuousClock.now - started >= .milliseconds(50))
        // The timed-out wait left nothing pending behind.
        let again = ContinuousClock.now
        await wake.wait(timeout: .milliseconds(50))
        #expect(ContinuousClock.now - again >= .milliseconds(50))
    }
}
