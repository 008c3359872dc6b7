import Foundation
import Synchronization

/// The event loops of one process, about one per core: every socket of the process (the
/// API's listeners, every APNs client's connections, the simulator's) runs on one of them,
/// so the number of threads follows the cores, not the number of apps or clients.
///
/// Like swift-nio's `EventLoopGroup`: components take a group and pick a loop with `next()`.
/// The process's group is `shared`, sized by `configureShared(loopCount:)` before first use.
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    private let nextIndex = Atomic<Int>(0)

    /// Starts `loopCount` loops, named `<name>-0`, `<name>-1`, ….
    public init(loopCount: Int, name: String = "event-loop") throws {
        precondition(loopCount >= 1, "an event loop group needs a loop")
        loops = try (0..<loopCount).map { try EventLoop(name: "\(name)-\($0)") }
    }

    /// The loops in turn, round-robin.
    public func next() -> EventLoop {
        loops[nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// Stops every loop after the jobs already queued and waits for their threads; for
    /// groups made by hand (tests), never for `shared`.
    public func shutdown() async {
        for loop in loops { await loop.stop() }
    }

    /// The default size: one loop per core.
    public static var defaultLoopCount: Int { ProcessInfo.processInfo.activeProcessorCount }

    private static let sharedState = Mutex<(loopCount: Int?, group: EventLoopGroup?)>((nil, nil))

    /// The process's group, made on first use with `configureShared`'s size (default: one
    /// loop per core); it runs as long as the process.
    public static var shared: EventLoopGroup {
        sharedState.withLock { state in
            if let group = state.group { return group }
            let loopCount = state.loopCount ?? defaultLoopCount
            do {
                let group = try EventLoopGroup(loopCount: loopCount)
                state.group = group
                return group
            } catch {
                fatalError("cannot start the process's event loops: \(error)")
            }
        }
    }

    /// Sizes `shared`; call once at start-up, before anything uses it.
    ///
    /// - Precondition: `shared` was not made yet, or with this size.
    public static func configureShared(loopCount: Int) {
        precondition(loopCount >= 1, "an event loop group needs a loop")
        sharedState.withLock { state in
            precondition(state.group == nil || state.group?.loops.count == loopCount,
                         "the shared event loop group is already running with another size")
            state.loopCount = loopCount
        }
    }
}
