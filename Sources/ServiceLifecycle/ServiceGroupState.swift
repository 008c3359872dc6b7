/// The decisions of a `ServiceGroup`, without I/O: which service to ask to stop next and
/// when the process is done, with which exit code.
///
/// Services start in order and stop in reverse, one at a time: the group asks the last
/// running service for a graceful shutdown, waits until it returns, then asks the one
/// before it. A SIGTERM or SIGINT begins that; a second signal ends the process at once.
/// A service that returns or throws before it was asked to stop begins it too, and makes
/// the exit code non-zero.
public struct ServiceGroupState: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Nothing to do: keep waiting.
        case none
        /// Ask the service at this index for a graceful shutdown.
        case shutDown(Int)
        /// Exit the process with this code now (every service has returned, or a second signal came).
        case exit(Int32)
    }

    /// A service that ended on its own or threw.
    public static let failureCode: Int32 = 1

    private enum Phase: Sendable, Equatable {
        case running
        /// Waiting for the service at this index to return.
        case stopping(Int)
        case exited
    }

    private var phase = Phase.running
    /// Per service, in start order: whether it has not returned yet.
    private var running: [Bool]
    private var failed = false

    public init(serviceCount: Int) {
        running = Array(repeating: true, count: serviceCount)
    }

    /// The exit code when every service has returned: 0 unless one failed.
    public var exitCode: Int32 { failed ? Self.failureCode : 0 }

    /// Whether the group waits for the service at `index` to return, having asked it to stop.
    public func isAwaiting(_ index: Int) -> Bool { phase == .stopping(index) }

    /// SIGTERM or SIGINT arrived.
    public mutating func signalReceived(_ signal: Int32) -> Action {
        switch phase {
        case .running:
            return stopNext()
        case .stopping:
            // The operator does not want to wait for the work in flight; a lease or the
            // next start picks it up. 128 + signal, as a shell reports a signal's death.
            phase = .exited
            return .exit(128 + signal)
        case .exited:
            return .none
        }
    }

    /// The service at `index` returned (`threw`: with an error).
    public mutating func serviceReturned(_ index: Int, threw: Bool) -> Action {
        guard running.indices.contains(index), running[index] else { return .none }
        running[index] = false
        switch phase {
        case .running:
            failed = true
            return stopNext()
        case .stopping(let awaited):
            if threw || index != awaited { failed = true }
            return index == awaited ? stopNext() : .none
        case .exited:
            return .none
        }
    }

    /// Asks the last service still running to stop, or exits when none is left.
    private mutating func stopNext() -> Action {
        guard let next = running.lastIndex(of: true) else {
            phase = .exited
            return .exit(exitCode)
        }
        phase = .stopping(next)
        return .shutDown(next)
    }
}
