import Synchronization

/// A counting semaphore for tasks: at most `limit` slots held; further acquisitions suspend
/// in FIFO order until holders release. The limit moves with the APNs side's window
/// (`resize(by:)`). Webhook posts are bounded by one too.
///
/// A batch takes many slots at once (`acquire(upTo:atLeast:)`) and waits until a good
/// number are free, so a large send is handed over in chunks rather than slot by slot.
public final class AsyncLimiter: Sendable {
    private struct Waiter {
        var minimum: Int
        var maximum: Int
        var continuation: CheckedContinuation<Int, Never>
    }

    private struct State {
        var limit: Int
        var available: Int
        var waiters = Deque<Waiter>()
        var inUse = 0
        var highWater = 0

        /// Takes up to `maximum` slots when at least `minimum` (at most the limit, which
        /// may have shrunk since the waiter came) are free.
        mutating func take(minimum: Int, maximum: Int) -> Int? {
            guard available >= max(1, min(minimum, limit)) else { return nil }
            let granted = min(maximum, available)
            available -= granted
            inUse += granted
            highWater = max(highWater, inUse)
            return granted
        }
    }

    private let state: Mutex<State>

    public init(limit: Int) {
        state = Mutex(State(limit: limit, available: limit))
    }

    /// The slots that may be held now.
    var limit: Int { state.withLock { $0.limit } }

    /// Holders now, and the most ever seen at once.
    var usage: (inUse: Int, highWater: Int) { state.withLock { ($0.inUse, $0.highWater) } }

    /// Acquisitions waiting now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    public func acquire() async {
        _ = await acquire(upTo: 1, atLeast: 1)
    }

    /// Waits until at least `minimum` slots are free (clamped to 1…`limit`), then takes up to `maximum`.
    ///
    /// - Returns: the number of slots taken, from `minimum` to `maximum`.
    func acquire(upTo maximum: Int, atLeast minimum: Int) async -> Int {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            let granted = state.withLock { state -> Int? in
                let minimum = max(1, min(minimum, state.limit, maximum))
                if state.waiters.isEmpty, let granted = state.take(minimum: minimum, maximum: maximum) { return granted }
                state.waiters.append(Waiter(minimum: minimum, maximum: maximum, continuation: continuation))
                return nil
            }
            if let granted { continuation.resume(returning: granted) }
        }
    }

    public func release(_ count: Int = 1) {
        adjust(available: count, inUse: -count, limit: 0)
    }

    /// Moves the limit by `delta`: slots freed go to the waiters; a smaller limit takes
    /// effect as holders release (none is taken back).
    func resize(by delta: Int) {
        adjust(available: delta, inUse: 0, limit: delta)
    }

    private func adjust(available: Int, inUse: Int, limit: Int) {
        // Slots go to the waiters in order, as soon as the first one's minimum is free.
        var resumed: [(CheckedContinuation<Int, Never>, Int)] = []
        state.withLock { state in
            state.available += available
            state.inUse += inUse
            state.limit += limit
            while let first = state.waiters.first, let granted = state.take(minimum: first.minimum, maximum: first.maximum) {
                _ = state.waiters.popFirst()
                resumed.append((first.continuation, granted))
            }
        }
        for (continuation, granted) in resumed { continuation.resume(returning: granted) }
    }
}
