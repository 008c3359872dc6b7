import Foundation

/// Exponential backoff with jitter: the wait before retry number `attempt` (1-based).
///
/// Pure: the random draw is passed in, so the schedule is tested exactly. PushRelayKit's own
/// on purpose (it is Foundation-only and imports no relay module), not PushPipeline's `Backoff`.
public struct Backoff: Sendable, Equatable {
    public var initial: Duration
    public var multiplier: Double
    public var maximum: Duration
    /// The fraction of each delay that is random (0 = none, 0.5 = between 50% and 100%).
    public var jitter: Double

    public init(initial: Duration = .milliseconds(500), multiplier: Double = 2, maximum: Duration = .seconds(60), jitter: Double = 0.2) {
        self.initial = initial
        self.multiplier = multiplier
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The delay before retry `attempt`.
    ///
    /// - Parameters:
    ///   - attempt: 1 for the first retry.
    ///   - random: a draw in 0..<1.
    public func delay(attempt: Int, random: Double) -> Duration {
        let exponent = Double(max(0, attempt - 1))
        let base = min(seconds(initial) * pow(multiplier, exponent), seconds(maximum))
        return .nanoseconds(Int64(base * (1 - jitter * random) * 1e9))
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Waits. Injected so tests drive time by hand and never sleep.
public protocol Sleeper: Sendable {
    func sleep(for duration: Duration) async throws
}

/// The real clock.
public struct TaskSleeper: Sleeper {
    public init() {}
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}
