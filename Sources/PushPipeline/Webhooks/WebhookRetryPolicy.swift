import Foundation
import RelayCore
import WebhookClient

/// What becomes of the events of one webhook request after an attempt: a 2xx delivers
/// them; anything else retries them with exponential backoff (jittered, capped) until the
/// retry horizon after the event's start (its creation, or an admin's retry), then they are
/// dead letters. Pure: the time and the jitter are given.
public struct WebhookRetryPolicy: Sendable, Equatable {
    public var backoff: Backoff
    /// How long an event is retried, from its start.
    public var horizon: Duration

    public init(backoff: Backoff = Backoff(base: .seconds(10), cap: .seconds(3600)), horizon: Duration = .seconds(24 * 3600)) {
        self.backoff = backoff
        self.horizon = horizon
    }

    public enum Verdict: Sendable, Equatable {
        case delivered
        case retry(at: Date)
        case dead
    }

    /// - Parameters:
    ///   - attempts: the event's attempts, this one included.
    ///   - start: where its horizon starts.
    ///   - jitter: a value in 0...1 (random in production).
    public func verdict(_ attempt: WebhookAttempt, attempts: Int, start: Date, now: Date, jitter: Double) -> Verdict {
        if case .answered(let status) = attempt, (200..<300).contains(status) { return .delivered }
        let next = now.addingTimeInterval(backoff.delay(retry: attempts, jitter: jitter).seconds)
        return next > start.addingTimeInterval(horizon.seconds) ? .dead : .retry(at: next)
    }
}

extension Duration {
    /// The duration in seconds, with fractions.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
