import Synchronization

/// How a running service learns that its group asks it to stop: the group runs each
/// service with a trigger of its own in a task-local (as swift-service-lifecycle does), so
/// `run()` needs no extra parameter.
final class GracefulShutdownTrigger: Sendable {
    private enum State {
        case waiting(next: Int, handlers: [Int: @Sendable () -> Void])
        case triggered
    }

    @TaskLocal static var current: GracefulShutdownTrigger?

    private let state = Mutex(State.waiting(next: 0, handlers: [:]))

    /// Calls every handler registered so far, and later ones at once; only the first call counts.
    func trigger() {
        let handlers: [@Sendable () -> Void] = state.withLock { state in
            guard case .waiting(_, let handlers) = state else { return [] }
            state = .triggered
            return handlers.sorted { $0.key < $1.key }.map(\.value)
        }
        for handler in handlers { handler() }
    }

    /// Runs `body` with this trigger as the one `withGracefulShutdownHandler` and
    /// `gracefulShutdown()` answer to.
    func bind<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await Self.$current.withValue(self, operation: body)
    }

    /// Registers `handler`; nil when already triggered, after calling it.
    fileprivate func add(_ handler: @escaping @Sendable () -> Void) -> Int? {
        let id: Int? = state.withLock { state in
            guard case .waiting(let next, var handlers) = state else { return nil }
            handlers[next] = handler
            state = .waiting(next: next + 1, handlers: handlers)
            return next
        }
        if id == nil { handler() }
        return id
    }

    fileprivate func remove(_ id: Int) {
        state.withLock { state in
            guard case .waiting(let next, var handlers) = state else { return }
            handlers[id] = nil
            state = .waiting(next: next, handlers: handlers)
        }
    }
}

/// Runs `operation`, calling `handler` (once, from another task) when the group asks the
/// service for a graceful shutdown; at once if it asked already. Outside a group the
/// handler is never called.
public func withGracefulShutdownHandler<T: Sendable>(
    operation: () async throws -> T, onGracefulShutdown handler: @escaping @Sendable () -> Void
) async rethrows -> T {
    guard let trigger = GracefulShutdownTrigger.current, let id = trigger.add(handler) else {
        return try await operation()
    }
    defer { trigger.remove(id) }
    return try await operation()
}

/// Returns when the group asks the service for a graceful shutdown, or when the task is
/// cancelled (outside a group, only then).
public func gracefulShutdown() async {
    let resumption = Resumption()
    let trigger = GracefulShutdownTrigger.current
    var id: Int?
    await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            resumption.store(continuation)
            id = trigger?.add { resumption.resume() }
            // Cancelled before the continuation was stored: the handler found nothing to resume.
            if Task.isCancelled { resumption.resume() }
        }
    } onCancel: {
        resumption.resume()
    }
    if let id { trigger?.remove(id) }
}

/// A continuation resumed by whichever comes first, the trigger or the cancellation.
private final class Resumption: Sendable {
    private let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)

    func store(_ continuation: CheckedContinuation<Void, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resume() {
        continuation.withLock { $0.take() }?.resume()
    }
}
