import CSystem
import Foundation
import Synchronization

/// One libevent `event_base` run by a thread of its own.
///
/// Thread rule: `base` and everything created on it are used only on the loop's thread
/// (`LoopBound` checks it in debug builds). Other threads hand work over with `execute`,
/// which queues a job under a mutex and wakes the loop with `event_active` (legal across
/// threads once libevent's pthread locking is on, which the first loop turns on).
///
/// `@unchecked Sendable`: `base` and `wakeEvent` are raw C handles, touched off the loop
/// thread only by `event_active` (locked by libevent); the job queue is under a mutex.
public final class EventLoop: @unchecked Sendable {
    /// The loop's `event_base`: for the loop's thread only.
    public let base: OpaquePointer
    public let name: String
    private var wakeEvent: OpaquePointer?
    private let jobs = Mutex<(queue: [@Sendable () -> Void], stopped: Bool)>(([], false))
    private let exited = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    /// The loop thread's `pthread_self()`, once it runs.
    private let threadID = Atomic<UInt>(0)

    /// Creates the `event_base` and starts the loop's thread.
    public init(name: String) throws {
        guard Self.prepareProcess, let base = event_base_new() else { throw EventLoopError(name: name) }
        self.base = base
        self.name = name
        let context = Unmanaged.passUnretained(self).toOpaque()
        wakeEvent = event_new(base, -1, 0, { _, _, context in
            Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().runJobs()
        }, context)
        let thread = Thread { [self] in
            // Named through pthreads (Foundation's Thread.name does not reliably reach the
            // kernel), so it shows in top -H and perf.
            CSystem_set_thread_name(name)
            threadID.store(Self.currentThreadID, ordering: .releasing)
            event_base_loop(self.base, EVLOOP_NO_EXIT_ON_EMPTY)
            runJobs()  // jobs queued before the stop still run, so none is dropped
            event_free(wakeEvent)
            event_base_free(self.base)
            let waiters = exited.withLock { state in
                state.done = true
                return state.waiters
            }
            waiters.forEach { $0.resume() }
        }
        thread.start()
    }

    /// Whether the caller runs on this loop's thread.
    public var inEventLoop: Bool {
        threadID.load(ordering: .acquiring) == Self.currentThreadID
    }

    /// Traps in debug builds when the caller is not on this loop's thread.
    @inlinable
    public func assertInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(inEventLoop, "not on event loop \(name)", file: file, line: line)
    }

    /// Runs `job` on the loop's thread soon, after the jobs queued before it.
    ///
    /// - Returns: false when the loop has stopped and the job will never run.
    @discardableResult
    public func execute(_ job: @escaping @Sendable () -> Void) -> Bool {
        let wake = jobs.withLock { state -> Bool? in
            if state.stopped { return nil }
            state.queue.append(job)
            return state.queue.count == 1
        }
        guard let wake else { return false }
        if wake { event_active(wakeEvent, 0, 0) }
        return true
    }

    /// Runs `job` on the loop's thread and returns its result.
    ///
    /// - Throws: what `job` throws, or `EventLoopError` when the loop has stopped.
    public func submit<Result: Sendable>(_ job: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            if !execute({ continuation.resume(with: Swift.Result { try job() }) }) {
                continuation.resume(throwing: EventLoopError(name: name))
            }
        }
    }

    /// Stops the loop after the jobs already queued, and waits until its thread is done.
    func stop() async {
        let stopping = jobs.withLock { state -> Bool in
            if state.stopped { return false }
            state.queue.append { [self] in event_base_loopbreak(self.base) }
            state.stopped = true
            return true
        }
        if stopping { event_active(wakeEvent, 0, 0) }
        await withCheckedContinuation { continuation in
            let done = exited.withLock { state in
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

    private static var currentThreadID: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    /// Once per process, before the first `event_base`: libevent's pthread locking (so
    /// `event_active` works from any thread), and SIGPIPE ignored so a write to a vanished
    /// peer fails with EPIPE instead of killing the process.
    private static let prepareProcess: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return evthread_use_pthreads() == 0
    }()
}

/// libevent could not make an event loop, or the loop has stopped.
public struct EventLoopError: Error, CustomStringConvertible {
    public let name: String
    public var description: String { "event loop \(name) is not available" }
}
