import Foundation
import RelayCore

/// Runs services until SIGTERM or SIGINT, then stops them in reverse order; the executor
/// of `ServiceGroupState` (after swift-service-lifecycle's `ServiceGroup`).
///
/// Each service runs in a task of its own with its own `GracefulShutdownTrigger`. The
/// group waits for signals and for services returning, and does what the state says.
public struct ServiceGroup: Sendable {
    private let services: [any Service]
    private let signals: [Int32]
    private let logger: Logger

    /// - Parameters:
    ///   - services: in start order; they stop in reverse.
    ///   - signals: the signals that ask for a graceful shutdown (a second one: exit at once).
    public init(services: [any Service], signals: [Int32] = [SIGTERM, SIGINT], logger: Logger) {
        self.services = services
        self.signals = signals
        self.logger = logger
    }

    private enum Event: Sendable {
        case signal(Int32)
        case returned(Int, (any Error)?)
    }

    /// Runs every service until the group is done.
    ///
    /// - Returns: the process's exit code: 0 after a graceful shutdown, 1 when a service
    ///   ended on its own or threw, 128 + the signal when a second signal cut the shutdown
    ///   short (the services still running are cancelled and not waited for).
    public func run() async -> Int32 {
        let (events, sink) = AsyncStream<Event>.makeStream()
        let watch = SignalWatch(signals: signals) { sink.yield(.signal($0)) }
        defer { watch.cancel() }
        let triggers = services.map { _ in GracefulShutdownTrigger() }
        let tasks = services.enumerated().map { index, service in
            let trigger = triggers[index]
            return Task {
                do {
                    try await trigger.bind { try await service.run() }
                    sink.yield(.returned(index, nil))
                } catch {
                    sink.yield(.returned(index, error))
                }
            }
        }
        var state = ServiceGroupState(serviceCount: services.count)
        var code = state.exitCode
        events: for await event in events {
            let action: ServiceGroupState.Action
            switch event {
            case .signal(let signal):
                logger.notice("shutting down", ["signal": signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : String(signal)])
                action = state.signalReceived(signal)
            case .returned(let index, let error):
                let name = services[index].name
                if let error {
                    logger.error("service failed", ["service": name, "error": "\(error)"])
                } else if !state.isAwaiting(index) {
                    logger.error("service ended unexpectedly", ["service": name])
                } else {
                    logger.info("service stopped", ["service": name])
                }
                action = state.serviceReturned(index, threw: error != nil)
            }
            switch action {
            case .none:
                break
            case .shutDown(let index):
                logger.info("stopping", ["service": services[index].name])
                triggers[index].trigger()
            case .exit(let exitCode):
                code = exitCode
                break events
            }
        }
        for task in tasks { task.cancel() }
        return code
    }
}
