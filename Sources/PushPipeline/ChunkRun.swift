import Foundation

/// One leased chunk being sent: which devices still need an attempt, and the outcomes not
/// yet written. Pure; `ChunkSender` does the I/O around it.
///
/// A run goes in rounds: `nextRound()` hands out every device waiting for an attempt,
/// `record(_:step:)` takes each one's result, `takeOutcomes()` hands the finished
/// ones to the writer. Devices to retry wait for the next round; once the credential is
/// found broken, nothing more is sent.
public struct ChunkRun: Sendable {
    /// A device to send to.
    public struct Target: Sendable, Equatable {
        public var deviceID: Int64
        public var token: String
        public var storedBadge: Int

        public init(deviceID: Int64, token: String, storedBadge: Int) {
            self.deviceID = deviceID
            self.token = token
            self.storedBadge = storedBadge
        }
    }

    /// A finished device, ready to be recorded (OutcomeWriter).
    public struct Outcome: Sendable, Equatable {
        public var deviceID: Int64
        public var outcome: DeliveryOutcome
        public var reason: String?
        public var attempts: Int
        /// For `.invalidated`: the APNs timestamp, when it gave one (410).
        public var invalidatedSince: Date?
    }

    private var waiting: [Target]
    private var attempts: [Int64: Int] = [:]
    private var finished: [Outcome] = []
    /// Retries recorded since the last `takeOutcomes()` (the message's `retry_count`).
    public private(set) var retries = 0
    /// Set once APNs or FCM refused the app's credential: the reason.
    public private(set) var brokenCredential: String?
    /// The longest wait the service asked for (FCM's `Retry-After`) among the retries of the
    /// last round.
    public private(set) var retryAfter: Duration?

    public init(targets: [Target]) {
        waiting = targets
    }

    /// True when every device has an outcome (written or not).
    public var isComplete: Bool { waiting.isEmpty }

    /// The devices to send this round; each counts one attempt.
    public mutating func nextRound() -> [Target] {
        guard brokenCredential == nil else { return [] }
        let round = waiting
        waiting = []
        retryAfter = nil
        for target in round { attempts[target.deviceID, default: 0] += 1 }
        return round
    }

    /// Takes one device's result.
    public mutating func record(_ target: Target, step: DeliveryStep) {
        let tries = attempts[target.deviceID, default: 1]
        switch step {
        case .record(let outcome, let reason):
            finished.append(Outcome(deviceID: target.deviceID, outcome: outcome, reason: reason, attempts: tries))
        case .invalidate(let reason, let since):
            finished.append(Outcome(deviceID: target.deviceID, outcome: .invalidated, reason: reason, attempts: tries,
                                    invalidatedSince: since))
        case .retry:
            retries += 1
            waiting.append(target)
        case .retryNotBefore(let delay):
            retries += 1
            waiting.append(target)
            retryAfter = max(retryAfter ?? .zero, delay)
        case .credentialBroken(let reason):
            if brokenCredential == nil { brokenCredential = reason }
            // Not the device's fault: this attempt does not count.
            attempts[target.deviceID, default: 1] -= 1
            waiting.append(target)
        }
    }

    /// Every device still waiting gets `outcome` (the message expired or was withdrawn).
    public mutating func finishWaiting(as outcome: DeliveryOutcome, reason: String?) {
        for target in waiting {
            finished.append(Outcome(deviceID: target.deviceID, outcome: outcome, reason: reason,
                                    attempts: attempts[target.deviceID, default: 0]))
        }
        waiting = []
    }

    /// The outcomes recorded since the last call, and the retries counted with them.
    public mutating func takeOutcomes() -> (outcomes: [Outcome], retries: Int) {
        defer {
            finished = []
            retries = 0
        }
        return (finished, retries)
    }
}
