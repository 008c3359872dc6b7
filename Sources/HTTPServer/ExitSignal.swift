import Synchronization

/// Set once by a loop thread as it ends; awaited by `shutdown()` in place of a blocking join.
final class ExitSignal: Sendable {
    private struct State: ~Copyable {
        var done = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func signal() {
        let waiters = state.withLock { state in
            state.done = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let alreadyDone = state.withLock { state in
                if state.done { return true }
                state.waiters.append(continuation)
                return false
            }
            if alreadyDone { continuation.resume() }
        }
    }
}
