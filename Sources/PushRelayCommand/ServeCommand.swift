import Dispatch
import Foundation
import HTTPServer
import RelayAPI
import RelayCore

/// `pushrelay serve`: migrate, serve the API until SIGTERM or SIGINT, then shut down in
/// reverse order (stop accepting, finish requests in flight, close the pool, stop the
/// embedded cluster) and exit 0.
enum ServeCommand {
    static func run(arguments: [String]) async -> Int32 {
        guard arguments.isEmpty else { return PushRelay.fail("serve takes no arguments yet, got \(arguments.joined(separator: " "))") }
        let environment: RelayEnvironment
        do {
            environment = try await RelayEnvironment.start(component: "serve")
        } catch {
            return PushRelay.fail("\(error)")
        }
        let logger = environment.logger
        let server: HTTPServer
        do {
            let applied = try await environment.migrate()
            if !applied.isEmpty { logger.info("migrations applied", ["versions": applied.map(String.init).joined(separator: ",")]) }
            let dependencies = RelayAPIDependencies(
                pool: environment.pool, secretBox: try environment.secretBox(), adminToken: try environment.adminToken(),
                logger: logger, authCacheTTL: .seconds(environment.configuration.authCacheSeconds))
            let configuration = environment.configuration
            var serverConfiguration = HTTPServerConfiguration()
            serverConfiguration.host = configuration.listenHost
            serverConfiguration.port = configuration.listenPort
            serverConfiguration.threads = configuration.threads
            serverConfiguration.maxBodySize = configuration.maxBodySize
            server = HTTPServer(configuration: serverConfiguration, responder: RelayAPI.router(dependencies), logger: logger)
            _ = try server.start()
        } catch {
            logger.error("start-up failed", ["error": "\(error)"])
            await environment.stop()
            return PushRelay.fail("\(error)")
        }

        let signal = await Signals.wait(for: [SIGTERM, SIGINT])
        logger.notice("shutting down", ["signal": signal == SIGTERM ? "SIGTERM" : "SIGINT"])
        await server.shutdown()
        await environment.stop()
        logger.notice("stopped")
        return 0
    }
}

/// Waits for the first of some signals, delivered through Dispatch rather than a handler.
enum Signals {
    static func wait(for signals: [Int32]) async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            SignalWatch(signals: signals) { continuation.resume(returning: $0) }.start()
        }
    }
}

/// The Dispatch signal sources of one wait; it resumes its caller once, with the first
/// signal, and then lives (ignoring those signals) as long as the process.
final class SignalWatch: @unchecked Sendable {
    // Touched only on `queue` after `start()`.
    private var sources: [any DispatchSourceSignal] = []
    private var fired = false
    private let queue = DispatchQueue(label: "pushrelay.signals")
    private let signals: [Int32]
    private let onSignal: @Sendable (Int32) -> Void

    init(signals: [Int32], onSignal: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        self.onSignal = onSignal
    }

    func start() {
        queue.sync {
            for number in signals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { [self] in
                    guard !fired else { return }
                    fired = true
                    onSignal(number)
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
