import CSystem
import Foundation

/// Where `monotonicSeconds` count from: any fixed instant does, as they are only compared
/// and subtracted.
private let origin = ContinuousClock.now

extension APNSClock {
    /// `instant` in seconds, the unit of the pool's timeouts and backoff.
    var monotonicSeconds: Double {
        let elapsed = instant - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

/// A `timeval` for libevent timers.
func makeTimeval(seconds: Double) -> timeval {
    let whole = seconds.rounded(.down)
    return timeval(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1e6))
}
