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
///
/// Timeouts: one timer at a time, armed at the oldest waiting item's deadline, not one per
/// call (a timer per call cost more CPU than the call's own work under load). When it fires
/// it fails what has expired and re-arms for the next oldest, if any is waiting.
final class PoolWork: @unchecked Sendable {
    private let condition = NSCondition()
    private var state: PoolQueue<PoolWorkItem>
    /// True while a timer is armed to expire waiting items.
    private var sweepArmed = false
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []

    init(capacity: Int, workers: Int, maxBulk: Int) {
        state = PoolQueue(capacity: capacity, workers: workers, maxBulk: maxBulk)
        bulkLimit = state.bulkLimit
    }

    /// Queues `item`; it fails with `.unavailable` when the queue is full or closed, or when no
    /// thread takes it within `timeout`.
    func submit(_ item: PoolWorkItem, timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        condition.lock()
        let result = state.submit(item, priority: item.priority, deadline: deadline)
        if result == .queued { condition.signal() }
        let arm = result == .queued && !sweepArmed
        if arm { sweepArmed = true }
        let capacity = state.capacity
        condition.unlock()

        switch result {
        case .queued:
            if arm { armSweep(at: deadline, timeout: timeout) }
        case .full:
            item.fail(.unavailable("too many calls waiting for a database connection (\(capacity))"))
        case .closed:
            item.fail(.unavailable("the database pool is closed"))
        }
    }

    private func armSweep(at deadline: UInt64, timeout: Duration) {
        DispatchQueue.global().asyncAfter(deadline: DispatchTime(uptimeNanoseconds: deadline)) { [self] in
            condition.lock()
            let expired = state.expire(now: DispatchTime.now().uptimeNanoseconds)
            let next = state.nextDeadline
            sweepArmed = next != nil
            condition.unlock()
            if let next { armSweep(at: next, timeout: timeout) }
            for item in expired { item.fail(.unavailable("no database connection became free within \(timeout)")) }
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
