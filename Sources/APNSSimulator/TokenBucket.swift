/// A per-connection bandwidth cap: bytes may go out while the bucket holds tokens, and
/// each write may overdraw it (a write that already happened cannot be taken back), so the
/// next waits until the debt is repaid. Refills at `bytesPerSecond` up to `burst`.
///
/// Pure: the caller passes the time (nanoseconds of any monotonic clock).
public struct TokenBucket: Sendable, Equatable {
    public let bytesPerSecond: Int
    public let burst: Int
    /// Below zero while in debt.
    public private(set) var tokens: Double
    private var updatedAt: UInt64

    /// Starts full. `burst` defaults to 20 ms of the rate, at least one 16 KiB frame.
    public init(bytesPerSecond: Int, burst: Int? = nil, now: UInt64) {
        precondition(bytesPerSecond > 0, "a bucket needs a rate")
        self.bytesPerSecond = bytesPerSecond
        self.burst = burst ?? max(16_384, bytesPerSecond / 50)
        tokens = Double(self.burst)
        updatedAt = now
    }

    /// Nanoseconds until bytes may go out again: 0 when they may now.
    public mutating func wait(now: UInt64) -> UInt64 {
        refill(now: now)
        guard tokens <= 0 else { return 0 }
        // At least 1 ns: with the debt exactly repaid, the bucket is still empty.
        return max(1, UInt64((-tokens / Double(bytesPerSecond) * 1e9).rounded(.up)))
    }

    /// Takes `bytes` that just went out (or came in).
    public mutating func spend(_ bytes: Int, now: UInt64) {
        refill(now: now)
        tokens -= Double(bytes)
    }

    private mutating func refill(now: UInt64) {
        guard now > updatedAt else { return }
        tokens = min(Double(burst), tokens + Double(now - updatedAt) * Double(bytesPerSecond) / 1e9)
        updatedAt = now
    }
}
