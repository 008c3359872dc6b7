import EventLoops
import Foundation
import HTTPServer
import PushPipeline
import RelayAPI
import RelayCore
import RelayCrypto
import ServiceLifecycle
import WebhookClient

/// `pushrelay serve [--role api|worker|scheduler|all]...`: migrate, run the API, a push
/// worker and/or the scheduler as a `ServiceGroup` until SIGTERM or SIGINT, then shut down
/// in reverse order (stop accepting, finish requests, chunks and the schedule in flight,
/// close the pool, stop the embedded cluster) and exit 0. A second signal exits at once
/// (128 + the signal); a service that ends on its own (the embedded cluster dying) stops
/// the others and exits 1. `--role` repeats (`--role api --role worker`); none means all.
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
        let webhookClient: WebhookClientConfiguration
        do {
            let relay = try RelayConfiguration.parse(ProcessInfo.processInfo.environment)
            pipeline = try PipelineConfiguration.parse(ProcessInfo.processInfo.environment, relay: relay)
            webhookClient = try WebhookClientConfiguration.parse(ProcessInfo.processInfo.environment)
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
        let services: [any Service]
        do {
            services = try await makeServices(role, environment: environment, pipeline: pipeline, webhookClient: webhookClient)
        } catch {
            logger.error("start-up failed", ["error": "\(error)"])
            await environment.stop()
            return PushRelay.fail("\(error)")
        }
        let code = await ServiceGroup(services: services, logger: logger.with(["role": role.names])).run()
        logger.notice("stopped", code == 0 ? [:] : ["exit_code": String(code)])
        return code
    }

    /// Migrates, then makes what the roles run, in start order; they stop in reverse: the
    /// listener stops accepting first, and the database closes last. The listener (the API's,
    /// or without the API `/healthz`, `/readyz` and `/metrics` only) listens already.
    private static func makeServices(_ role: Roles, environment: RelayEnvironment, pipeline: PipelineConfiguration,
                                     webhookClient: WebhookClientConfiguration) async throws -> [any Service] {
        let logger = environment.logger
        let applied = try await environment.migrate()
        if !applied.isEmpty { logger.info("migrations applied", ["versions": applied.map(String.init).joined(separator: ",")]) }
        let secretBox = try environment.secretBox()
        var services: [any Service] = [DatabaseService(environment: environment)]
        let liveness = Liveness(allowance: .seconds(environment.configuration.loopStallSeconds))
        let worker = role.runsWorker ? PushWorker(pool: environment.pool, connectionString: environment.connectionString,
                                                  secretBox: secretBox, configuration: pipeline, logger: logger,
                                                  liveness: liveness) : nil
        if let worker { services.append(WorkerService(worker: worker)) }
        // Worker nodes drain the webhook outbox too, with tasks and connections of its own.
        if role.runsWorker {
            services.append(WebhookDeliveryService(worker: WebhookDeliveryWorker(
                pool: environment.pool, box: secretBox, poster: try WebhookHTTPClient(group: .shared, configuration: webhookClient),
                configuration: pipeline.webhooks, logger: logger)))
        }
        if role.runsScheduler {
            var configuration = Scheduler.Configuration()
            configuration.grace = TimeInterval(environment.configuration.scheduleGraceSeconds)
            services.append(SchedulerService(scheduler: Scheduler(
                pool: environment.pool, connectionString: environment.connectionString,
                messages: MessageStore(pool: environment.pool, chunkSize: pipeline.chunkSize),
                configuration: configuration, logger: logger, liveness: liveness)))
        }
        // Worker and scheduler nodes keep the deliveries' day partitions (API-only nodes don't).
        if role.runsWorker || role.runsScheduler {
            services.append(PartitionService(partitions: DeliveryPartitions(
                pool: environment.pool, retentionDays: pipeline.retentionDays, logger: logger)))
        }
        // A process without the API still answers /healthz, /readyz and /metrics.
        services.append(ListenerService(server: try startListener(
            environment, role: role, pipeline: pipeline, secretBox: secretBox, worker: worker,
            liveness: role.runsWorker || role.runsScheduler ? liveness : nil)))
        return services
    }

    /// The HTTP server on `PUSHRELAY_LISTEN`, listening: the API when the roles include it
    /// (it hands targeted chunks to `worker` when there is one), else only the health and
    /// metrics routes (`RelayAPI.observerRouter`).
    private static func startListener(_ environment: RelayEnvironment, role: Roles, pipeline: PipelineConfiguration,
                                      secretBox: SecretBox, worker: PushWorker?, liveness: Liveness?) throws -> HTTPServer {
        let configuration = environment.configuration
        // Without the API no admin route is served: no admin token is read or generated.
        let adminToken = role.runsAPI ? try environment.adminToken() : SecureRandom.hex(24)
        var dependencies = RelayAPIDependencies(
            pool: environment.pool, secretBox: secretBox, adminToken: adminToken,
            logger: environment.logger, authCacheTTL: .seconds(configuration.authCacheSeconds))
        dependencies.liveness = liveness
        dependencies.chunkSize = pipeline.chunkSize
        dependencies.retentionDays = pipeline.retentionDays
        dependencies.liveActivityMinIntervalMS = pipeline.liveActivityMinIntervalMS
        dependencies.timeZone = configuration.timeZone
        dependencies.worker = worker
        dependencies.rateLimits = RateLimitSettings(
            defaultPerMinute: configuration.rateLimitPerMinute,
            authFailuresPerMinute: configuration.authFailuresPerMinute,
            clientRegistrationsPerMinutePerKey: configuration.clientRegistrationsPerMinutePerKey,
            clientRegistrationsPerMinutePerAddress: configuration.clientRegistrationsPerMinutePerAddress)
        dependencies.trustedProxies = configuration.trustedProxies
        dependencies.metricsToken = configuration.metricsToken
        dependencies.channelEndpoints = LiveActivityChannelEndpoints(configuration)
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
        let router = role.runsAPI ? RelayAPI.router(dependencies) : RelayAPI.observerRouter(dependencies)
        let server = HTTPServer(configuration: serverConfiguration, responder: router, logger: environment.logger)
        _ = try server.start()
        return server
    }
}
