import Foundation

/// CPU-heavy work (the slow secret hash) on threads of its own, at most one per core, so
/// it never occupies the Swift concurrency pool or an event loop.
final class SlowWork: @unchecked Sendable {
    // OperationQueue is thread-safe; this class only forwards to it.
    private let queue: OperationQueue

    init(width: Int = ProcessInfo.processInfo.activeProcessorCount) {
        queue = OperationQueue()
        queue.name = "pushrelay.slow-work"
        queue.maxConcurrentOperationCount = max(1, width)
    }

    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.addOperation { continuation.resume(returning: body()) }
        }
    }
}
