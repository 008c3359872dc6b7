import Synchronization

/// A counting semaphore for tasks: at most `limit` holders; further `acquire` calls suspend
/// in FIFO order until a holder releases.
final class AsyncLimiter: Sendable {
    private struct State {
        var available: Int
        var waiters = Deque<CheckedContinuation<Void, Never>>()
        var inUse = 0
        var highWater = 0
    }

    private let state: Mutex<State>

    init(limit: Int) {
        state = Mutex(State(available: limit))
    }

    /// Holders now, and the most ever seen at once.
    var usage: (inUse: Int, highWater: Int) { state.withLock { ($0.inUse, $0.highWater) } }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                guard state.available > 0 else {
                    state.waiters.append(continuation)
                    return false
                }
                state.available -= 1
                state.inUse += 1
                state.highWater = max(state.highWater, state.inUse)
                return true
            }
            if granted { continuation.resume() }
        }
    }

    func release() {
        // The slot passes straight to the longest waiter, if any.
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiters.popFirst() { return waiter }
            state.available += 1
            state.inUse -= 1
            return nil
        }
        next?.resume()
    }
}
