/// The retry of a sender whose last attempt failed (`PushRelayReceipts`, `PushTokenReporter`):
/// the backoff's delay grows with each failure in a row, and a newer failure moves the retry
/// later (the one scheduled before is cancelled).
struct RetrySchedule: Sendable {
    let backoff: Backoff
    let sleeper: any Sleeper
    let random: @Sendable () -> Double
    /// Attempts in a row that failed; the next retry waits `backoff.delay(attempt: failures)`.
    private var failures = 0
    private var task: Task<Void, Never>?

    init(backoff: Backoff, sleeper: any Sleeper, random: @escaping @Sendable () -> Double) {
        self.backoff = backoff
        self.sleeper = sleeper
        self.random = random
    }

    /// An attempt went through: the next failure waits the first delay again.
    mutating func succeeded() { failures = 0 }

    /// Runs `action` after the delay.
    mutating func retry(_ action: @escaping @Sendable () async -> Void) {
        failures += 1
        let delay = backoff.delay(attempt: failures, random: random())
        task?.cancel()
        task = Task { [sleeper] in
            do { try await sleeper.sleep(for: delay) } catch { return }
            await action()
        }
    }
}
