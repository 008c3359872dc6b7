/// Exponential backoff with jitter: `base · 2^(n-1)`, capped, scaled by a random factor in
/// [0.5, 1] so a crowd of retries does not come back at the same instant. For devices APNs
/// asked us to retry (429, 500, 503, lost connections) and for the APNs client's reconnects.
public struct Backoff: Sendable, Equatable {
    public var base: Duration
    public var cap: Duration

    public init(base: Duration = .milliseconds(100), cap: Duration = .seconds(10)) {
        self.base = base
        self.cap = cap
    }

    /// The delay before retry number `retry` (1 for the first).
    ///
    /// - Parameters:
    ///   - jitter: a value in 0...1 (random in production, fixed in tests).
    public func delay(retry: Int, jitter: Double) -> Duration {
        let exponent = min(max(retry - 1, 0), 30)
        let raw = base * (1 << exponent)
        let capped = raw > cap ? cap : raw
        return capped * (0.5 + 0.5 * min(max(jitter, 0), 1))
    }
}
