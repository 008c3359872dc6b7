import CSystem
import Foundation
import Synchronization

/// One libevent `event_base` running on a thread of its own.
///
/// Thread rule: `base` and everything created on it are used only on the loop thread.
/// Other threads hand work over with `execute`, which queues a job under a mutex and wakes
/// the loop with `event_active` (libevent is set up for pthreads first).
final class EventLoop: @unchecked Sendable {
    let base: OpaquePointer
    private var wakeEvent: OpaquePointer?
    private let jobs = Mutex<(queue: [@Sendable () -> Void], stopped: Bool)>(([], false))
    private let finished = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(name: String) throws {
        guard CSystem_apns_client_init() == 1, let base = event_base_new() else {
            throw APNSFailure.connectionFailed("cannot create an event loop")
        }
        self.base = base
        let context = Unmanaged.passUnretained(self).toOpaque()
        wakeEvent = event_new(base, -1, 0, { _, _, context in
            Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().runJobs()
        }, context)
        let thread = Thread { [self] in
            Thread.current.name = name  // set from the thread itself, so it shows in top -H and perf
            event_base_loop(self.base, EVLOOP_NO_EXIT_ON_EMPTY)
            runJobs()  // jobs queued before the stop still run, so none is dropped
            event_free(wakeEvent)
            event_base_free(self.base)
            let waiters = finished.withLock { state in
                state.done = true
                return state.waiters
            }
            waiters.forEach { $0.resume() }
        }
        thread.start()
    }

    /// Runs `job` on the loop thread soon.
    ///
    /// - Returns: false when the loop has stopped and the job will never run.
    @discardableResult
    func execute(_ job: @escaping @Sendable () -> Void) -> Bool {
        let wake = jobs.withLock { state -> Bool? in
            if state.stopped { return nil }
            state.queue.append(job)
            return state.queue.count == 1
        }
        guard let wake else { return false }
        if wake { event_active(wakeEvent, 0, 0) }
        return true
    }

    /// Stops the loop after the jobs already queued; callable from any thread, once or more.
    func requestStop() {
        let stopping = jobs.withLock { state -> Bool in
            if state.stopped { return false }
            state.queue.append { [self] in event_base_loopbreak(self.base) }
            state.stopped = true
            return true
        }
        if stopping { event_active(wakeEvent, 0, 0) }
    }

    /// Stops the loop after the jobs already queued, and waits until its thread is done.
    func stop() async {
        requestStop()
        await withCheckedContinuation { continuation in
            let done = finished.withLock { state in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    private func runJobs() {
        let batch = jobs.withLock { state in
            defer { state.queue.removeAll(keepingCapacity: true) }
            return state.queue
        }
        batch.forEach { $0() }
    }
}

/// Seconds on a clock that never jumps, for timeouts and backoff.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}

/// A `timeval` for libevent timers.
func makeTimeval(seconds: Double) -> timeval {
    let whole = seconds.rounded(.down)
    return timeval(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1e6))
}
