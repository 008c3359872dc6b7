/// Counts events per key in fixed windows aligned to the epoch (one minute by default): the
/// rate-limit decision, pure and driven by the caller's clock so it is tested without waiting.
///
/// A fixed window lets a client spend its limit at the end of one window and again at the
/// start of the next (at most twice the limit within any 60 s); in exchange each key costs
/// one counter and `X-Rate-Limit-Reset` is exact. Memory is bounded by `capacity`: past it,
/// counters of ended windows are dropped, and keys beyond it share one overflow counter (so
/// a flood of fresh keys is still limited, only more coarsely).
struct FixedWindowCounter: Sendable {
    /// What a request is told about its key's window.
    struct Decision: Sendable, Equatable {
        var allowed: Bool
        var limit: Int
        var remaining: Int
        /// Whole seconds until the window ends (1 ... window length).
        var resetSeconds: Int
    }

    static let overflowKey = "\u{0}overflow"

    let windowSeconds: Int64
    let capacity: Int
    private var counts: [String: Window] = [:]

    private struct Window: Sendable {
        var windowStart: Int64
        var count: Int
    }

    init(windowSeconds: Int64 = 60, capacity: Int = 100_000) {
        precondition(windowSeconds > 0 && capacity > 0)
        self.windowSeconds = windowSeconds
        self.capacity = capacity
    }

    /// Keys currently holding a counter (the overflow counter included).
    var trackedKeys: Int { counts.count }

    /// Counts one event for `key` and says whether it is within `limit`.
    ///
    /// - Parameters:
    ///   - now: seconds since the epoch.
    mutating func take(_ key: String, limit: Int, now: Int64) -> Decision {
        let start = windowStart(now)
        let slot = slotKey(for: key, windowStart: start)
        var entry = counts[slot].flatMap { $0.windowStart == start ? $0 : nil } ?? Window(windowStart: start, count: 0)
        entry.count += 1
        counts[slot] = entry
        return decision(count: entry.count, allowedWhile: entry.count <= limit, limit: limit, windowStart: start, now: now)
    }

    /// Says whether `key` may have another event, without counting one.
    func check(_ key: String, limit: Int, now: Int64) -> Decision {
        let start = windowStart(now)
        let slot = counts[key] != nil ? key : (counts.count >= capacity ? Self.overflowKey : key)
        let count = counts[slot].flatMap { $0.windowStart == start ? $0.count : nil } ?? 0
        return decision(count: count, allowedWhile: count < limit, limit: limit, windowStart: start, now: now)
    }

    private func windowStart(_ now: Int64) -> Int64 {
        now - ((now % windowSeconds) + windowSeconds) % windowSeconds
    }

    private func decision(count: Int, allowedWhile allowed: Bool, limit: Int, windowStart: Int64, now: Int64) -> Decision {
        Decision(allowed: allowed, limit: limit, remaining: max(0, limit - count),
                 resetSeconds: Int(windowStart + windowSeconds - now))
    }

    /// The key itself while there is room; otherwise ended windows are swept first, and a key
    /// that still finds no room shares the overflow counter.
    private mutating func slotKey(for key: String, windowStart: Int64) -> String {
        if counts[key] != nil || counts.count < capacity { return key }
        counts = counts.filter { $0.value.windowStart == windowStart }
        return counts.count < capacity ? key : Self.overflowKey
    }
}
