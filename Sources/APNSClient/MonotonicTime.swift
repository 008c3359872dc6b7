import CSystem
import Foundation

/// Seconds on a clock that never jumps, for timeouts and backoff.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}

/// A `timeval` for libevent timers.
func makeTimeval(seconds: Double) -> timeval {
    let whole = seconds.rounded(.down)
    return timeval(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1e6))
}
