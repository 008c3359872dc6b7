import Dispatch
import EventLoops
import Foundation
import HTTPServer
import PushPipeline
import RelayAPI
import RelayCore

/// `pushrelay serve [--role api|worker|scheduler|all]...`: migrate, run the API, a push
/// worker and/or the scheduler until SIGTERM or SIGINT, then shut down in reverse order (stop
/// accepting, finish requests, chunks and the schedule in flight, close the pool, stop the
/// embedded cluster) and exit 0. `--role` repeats (`--role api --role worker`); none means all.
enum ServeCommand {
    /// What one process runs: the union of the `--role`s given.
    struct Roles: Equatable {
        var runsAPI = false
        var runsWorker = false
        var runsScheduler = false

        static let all = Roles(runsAPI: true, runsWorker: true, runsScheduler: true)

        /// The roles' names, for the logs.
        var names: String {
            [runsAPI ? "api" : nil, runsWorker ? "worker" : nil, runsScheduler ? "scheduler" : nil].compactMap { $0 }.joined(separator: ",")
        }

        mutating func add(_ name: String) -> Bool {
            switch name {
            case "api": runsAPI = true
            case "worker": runsWorker = true
            case "scheduler": runsScheduler = true
            case "all": self = .all
            default: return false
            }
            return true
        }
    }

    /// `--role NAME` and `--role=NAME`, any number of times; nil on anything else.
    static func parseRoles(_ arguments: [String]) -> Roles? {
        if arguments.isEmpty { return .all }
        var roles = Roles()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            let name: String
            if argument == "--role", let value = rest.popFirst() {
                name = value
            } else if argument.hasPrefix("--role=") {
                name = String(argument.dropFirst("--role=".count))
            } else {
                return nil
            }
            guard roles.add(name) else { return nil }
        }
        return roles
    }

    static func run(arguments: [String]) async -> Int32 {
        guard let role = parseRoles(arguments) else {
            return PushRelay.fail("serve takes --role api|worker|scheduler|all, repeatable (default all), got \(arguments.joined(separator: " "))")
        }
        let pipeline: PipelineConfiguration
        do {
            let relay = try RelayConfiguration.parse(ProcessInfo.processInfo.environment)
            pipeline = try PipelineConfiguration.parse(ProcessInfo.processInfo.environment, relay: relay)
        } catch {
            return PushRelay.fail("\(error)")
        }
        let environment: RelayEnvironment
        do {
            environment = try await RelayEnvironment.start(component: "serve")
        } catch {
            return PushRelay.fail("\(error)")
        }
        let logger = environment.logger
        EventLoopGroup.configureShared(loopCount: environment.configuration.threads)
        var server: HTTPServer?
        var worker: PushWorker?
        var scheduler: Scheduler?
        do {
            let applied = try await environment.migrate()
            if !applied.isEmpty { logger.info("migrations applied", ["versions": applied.map(String.init).joined(separator: ",")]) }
            let secretBox = try environment.secretBox()
            if role.runsWorker {
                worker = PushWorker(pool: environment.pool, connectionString: environment.connectionString,
                                    secretBox: secretBox, configuration: pipeline, logger: logger)
            }
            if role.runsAPI {
                var dependencies = RelayAPIDependencies(
                    pool: environment.pool, secretBox: secretBox, adminToken: try environment.adminToken(),
                    logger: logger, authCacheTTL: .seconds(environment.configuration.authCacheSeconds))
                dependencies.chunkSize = pipeline.chunkSize
                dependencies.timeZone = environment.configuration.timeZone
                dependencies.worker = worker
                dependencies.rateLimits = RateLimitSettings(
                    defaultPerMinute: environment.configuration.rateLimitPerMinute,
                    authFailuresPerMinute: environment.configuration.authFailuresPerMinute)
                dependencies.trustedProxies = environment.configuration.trustedProxies
                dependencies.metricsToken = environment.configuration.metricsToken
                let configuration = environment.configuration
                var serverConfiguration = HTTPServerConfiguration()
                serverConfiguration.host = configuration.listenHost
                serverConfiguration.port = configuration.listenPort
                serverConfiguration.threads = configuration.threads
                serverConfiguration.maxBodySize = configuration.maxBodySize
                serverConfiguration.requestReadTimeout = .seconds(configuration.headerTimeoutSeconds)
                if let cap = configuration.maxConnections { serverConfiguration.maxConnections = cap }
                serverConfiguration.maxConnectionsPerAddress = configuration.maxConnectionsPerAddress
                serverConfiguration.maxRequestsPerConnection = configuration.maxRequestsPerConnection
                if let certificate = configuration.tlsCertificatePath, let key = configuration.tlsKeyPath {
                    serverConfiguration.tls = .init(certificatePath: certificate, keyPath: key)
                    dependencies.servesTLS = true
                }
                let api = HTTPServer(configuration: serverConfiguration, responder: RelayAPI.router(dependencies), logger: logger)
                _ = try api.start()
                server = api
            }
            if role.runsScheduler {
                var configuration = Scheduler.Configuration()
                configuration.grace = TimeInterval(environment.configuration.scheduleGraceSeconds)
                scheduler = Scheduler(pool: environment.pool, connectionString: environment.connectionString,
                                      messages: MessageStore(pool: environment.pool, chunkSize: pipeline.chunkSize),
                                      configuration: configuration, logger: logger)
            }
        } catch {
            logger.error("start-up failed", ["error": "\(error)"])
            await environment.stop()
            return PushRelay.fail("\(error)")
        }
        let workerTask = worker.map { worker in Task { await worker.run() } }
        // Worker and scheduler nodes keep the deliveries' day partitions (API-only nodes don't).
        let partitionTask = role.runsWorker || role.runsScheduler ? Task {
            await DeliveryPartitions(pool: environment.pool, retentionDays: pipeline.retentionDays, logger: logger).run()
        } : nil
        let schedulerTask = scheduler.map { scheduler in Task { await scheduler.run() } }

        let signal = await Signals.wait(for: [SIGTERM, SIGINT])
        logger.notice("shutting down", ["signal": signal == SIGTERM ? "SIGTERM" : "SIGINT", "role": role.names])
        await server?.shutdown()
        partitionTask?.cancel()
        await partitionTask?.value
        scheduler?.stop()
        await schedulerTask?.value
        worker?.stop()
        await workerTask?.value
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
