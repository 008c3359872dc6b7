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
        return Self.decision(count: entry.count, limit: limit, windowStart: start, windowSeconds: windowSeconds, now: now)
    }

    /// Says whether `key` may have another event, without counting one.
    func check(_ key: String, limit: Int, now: Int64) -> Decision {
        let start = windowStart(now)
        let slot = counts[key] != nil ? key : (counts.count >= capacity ? Self.overflowKey : key)
        let count = counts[slot].flatMap { $0.windowStart == start ? $0.count : nil } ?? 0
        // Checking counts nothing: the next event would be the count + 1st.
        var decision = Self.decision(count: count + 1, limit: limit, windowStart: start, windowSeconds: windowSeconds, now: now)
        decision.remaining = max(0, limit - count)
        return decision
    }

    private func windowStart(_ now: Int64) -> Int64 {
        Self.windowStart(now, windowSeconds: windowSeconds)
    }

    /// The start of the window holding `now` (seconds since the epoch).
    static func windowStart(_ now: Int64, windowSeconds: Int64) -> Int64 {
        now - ((now % windowSeconds) + windowSeconds) % windowSeconds
    }

    /// What the `count`th event of a window starting at `windowStart` is told at `now`. The
    /// reset stays within 1 ... `windowSeconds` even for a window another node's clock started
    /// (`RequestCounter`).
    static func decision(count: Int, limit: Int, windowStart: Int64, windowSeconds: Int64, now: Int64) -> Decision {
        Decision(allowed: count <= limit, limit: limit, remaining: max(0, limit - count),
                 resetSeconds: Int(min(max(windowStart + windowSeconds - now, 1), windowSeconds)))
    }

    /// The key itself while there is room; otherwise ended windows are swept first, and a key
    /// that still finds no room shares the overflow counter.
    private mutating func slotKey(for key: String, windowStart: Int64) -> String {
        if counts[key] != nil || counts.count < capacity { return key }
        counts = counts.filter { $0.value.windowStart == windowStart }
        return counts.count < capacity ? key : Self.overflowKey
    }
}
