import Synchronization

/// Wakes one waiting loop: a signal given while nobody waits is kept for the next wait.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        /// Ends a wait after its timeout; cancelled when a signal ends it first.
        var timer: Task<Void, Never>?
        var generation = 0
    }

    private let state = Mutex(State())

    func signal() {
        let woken = state.withLock { state -> (CheckedContinuation<Void, Never>, Task<Void, Never>?)? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            defer {
                state.waiter = nil
                state.timer = nil
            }
            return (waiter, state.timer)
        }
        woken?.1?.cancel()
        woken?.0.resume()
    }

    /// Returns at the next signal (at once if one is pending) or after `timeout`.
    func wait(timeout: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { state in
                if state.pending {
                    state.pending = false
                    continuation.resume()
                    return
                }
                state.generation += 1
                let generation = state.generation
                state.waiter = continuation
                state.timer = Task { [weak self] in
                    do { try await Task.sleep(for: timeout) } catch { return }
                    self?.timeout(generation: generation)
                }
            }
        }
    }

    private func timeout(generation: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.generation == generation, let waiter = state.waiter else { return nil }
            state.waiter = nil
            state.timer = nil
            return waiter
        }
        waiter?.resume()
    }
}
