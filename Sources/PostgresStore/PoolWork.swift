import Foundation

/// A unit of work for a pool thread: run it with the thread's connection slot, or fail it
/// without running when it cannot be served.
struct PoolWorkItem: Sendable {
    let priority: PostgresPriority
    let run: @Sendable (ConnectionSlot) -> Void
    let fail: @Sendable (PostgresError) -> Void
}

/// The queue the pool's callers and threads share: a `PoolQueue` behind a condition variable.
///
/// Thread rule: every access to `state` holds `condition`; worker threads block in `next()`
/// (they are our own threads, never the Swift concurrency pool's). Items are failed or run
/// outside the lock.
final class PoolWork: @unchecked Sendable {
    private let condition = NSCondition()
    private var state: PoolQueue<PoolWorkItem>
    private var nextID: UInt64 = 0
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []

    init(capacity: Int, workers: Int, maxBulk: Int) {
        state = PoolQueue(capacity: capacity, workers: workers, maxBulk: maxBulk)
        bulkLimit = state.bulkLimit
    }

    /// Queues `item`; it fails with `.unavailable` when the queue is full or closed, or when no
    /// thread takes it within `timeout`.
    func submit(_ item: PoolWorkItem, timeout: Duration) {
        condition.lock()
        nextID += 1
        let id = nextID
        let result = state.submit(id: id, item, priority: item.priority)
        if result == .queued { condition.signal() }
        let capacity = state.capacity
        condition.unlock()

        switch result {
        case .queued:
            let (seconds, attoseconds) = timeout.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
                if let expired = remove(id: id) {
                    expired.fail(.unavailable("no database connection became free within \(timeout)"))
                }
            }
        case .full:
            item.fail(.unavailable("too many calls waiting for a database connection (\(capacity))"))
        case .closed:
            item.fail(.unavailable("the database pool is closed"))
        }
    }

    /// Threads that may run bulk calls at once (fixed at creation).
    let bulkLimit: Int

    /// Calls waiting for a thread.
    var waitingCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return state.waitingCount
    }

    /// The next item for a worker thread, blocking while there is none; nil when the pool is
    /// closed and drained.
    ///
    /// - Parameter finished: the item the thread ran last, if any.
    func next(after finished: PoolWorkItem?) -> PoolWorkItem? {
        condition.lock()
        defer { condition.unlock() }
        if finished?.priority == .bulk {
            state.finishedBulk()
            // A bulk item held back by the limit may run now, on another waiting thread too.
            condition.broadcast()
        }
        while true {
            switch state.next() {
            case .run(let item): return item
            case .wait: condition.wait()
            case .exit: return nil
            }
        }
    }

    private func remove(id: UInt64) -> PoolWorkItem? {
        condition.lock()
        defer { condition.unlock() }
        return state.remove(id: id)
    }

    /// Stops taking work; `done` is resumed once every worker has drained the queue and exited.
    func close(done: CheckedContinuation<Void, Never>?) {
        condition.lock()
        state.close()
        condition.broadcast()
        let finished = state.liveWorkers == 0
        if !finished, let done { closeWaiters.append(done) }
        condition.unlock()
        if finished { done?.resume() }
    }

    /// Called by a worker thread as its last act, after its connection is closed.
    func workerExited() {
        condition.lock()
        let waiters = state.workerExited() ? closeWaiters : []
        if !waiters.isEmpty { closeWaiters = [] }
        condition.unlock()
        waiters.forEach { $0.resume() }
    }
}
