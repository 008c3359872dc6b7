import Foundation

/// Reports the device's Live Activity tokens and states and its tokens of other push types
/// (VoIP, location, complication, File Provider, Push to Talk) with the device secret, in the
/// order they happened, each once.
///
/// The decisions are `TokenOutbox`'s; this sends its reports one at a time. What cannot go now
/// (offline, relay busy, not registered yet) stays queued, bounded, and goes with the next
/// report, the next `flush()` (call it once registered) or the backoff's retry. The queue lives
/// in memory: ActivityKit and PushKit hand out the current tokens again at every launch, so
/// nothing is lost with the process. The adapters `LiveActivityTokens` (ActivityKit) and
/// `PushKitTokens` (PushKit) feed it; other sources (Core Location's location push token,
/// Push to Talk's ephemeral token) call `report(.deviceToken(…))`.
public actor PushTokenReporter {
    private let registration: ClientKeyRegistration
    public private(set) var outbox: TokenOutbox
    private var retries: RetrySchedule
    /// One report in flight: one reported meanwhile goes with the running send.
    private var sending = false

    /// - Parameters:
    ///   - registration: the device's client-key registration (its credentials, and their renewal).
    ///   - capacity: the most reports kept; past it the oldest are dropped.
    ///   - sleeper, random: the retries' clock and the backoff's jitter.
    public init(registration: ClientKeyRegistration, capacity: Int = 64,
                backoff: Backoff = Backoff(initial: .seconds(5), maximum: .seconds(600)), sleeper: any Sleeper = TaskSleeper(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.registration = registration
        self.outbox = TokenOutbox(capacity: capacity)
        self.retries = RetrySchedule(backoff: backoff, sleeper: sleeper, random: random)
    }

    /// Queues a report and sends the queue.
    ///
    /// - Returns: true when nothing is left queued.
    @discardableResult
    public func report(_ report: TokenReport) async -> Bool {
        outbox.add(report)
        return await flush()
    }

    /// A token of another kind, from its bytes (sent as lowercase hex).
    @discardableResult
    public func report(_ type: PushTokenType, token: Data) async -> Bool {
        await report(.deviceToken(type, token: DeviceToken(token).hex))
    }

    /// Sends what is queued, one report at a time, until it is empty or a report cannot go now.
    ///
    /// - Returns: true when nothing is left queued.
    @discardableResult
    public func flush() async -> Bool {
        guard !sending else { return false }
        sending = true
        defer { sending = false }
        var renewed = false
        while let next = outbox.next() {
            guard let credentials = await registration.credentials else { return false }
            let outcome: TokenOutbox.Outcome
            do {
                try await registration.client.report(next, as: credentials)
                outcome = .accepted
                retries.succeeded()
            } catch {
                outcome = TokenOutbox.Outcome(error)
            }
            switch outbox.settle(next, outcome) {
            case .send:
                continue
            case .renewSecret where !renewed:
                renewed = true
                guard await renewSecret() else { return false }
            case .renewSecret, .retryLater:
                retries.retry { await self.flush() }
                return false
            }
        }
        return true
    }

    /// A new device secret (registering the held token again); false when there is none now.
    private func renewSecret() async -> Bool {
        do {
            _ = try await registration.renewSecret()
            return true
        } catch {
            if error.isTransient { retries.retry { await self.flush() } }
            return false
        }
    }
}
