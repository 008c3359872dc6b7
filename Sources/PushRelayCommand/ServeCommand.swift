import EventLoops
import Foundation
import HTTPServer
import PushPipeline
import RelayAPI
import RelayCore
import RelayCrypto
import ServiceLifecycle

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
        let services: [any Service]
        do {
            services = try await makeServices(role, environment: environment, pipeline: pipeline)
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
    /// API stops accepting first, and the database closes last. The API listens already.
    private static func makeServices(_ role: Roles, environment: RelayEnvironment,
                                     pipeline: PipelineConfiguration) async throws -> [any Service] {
        let logger = environment.logger
        let applied = try await environment.migrate()
        if !applied.isEmpty { logger.info("migrations applied", ["versions": applied.map(String.init).joined(separator: ",")]) }
        let secretBox = try environment.secretBox()
        var services: [any Service] = [DatabaseService(environment: environment)]
        let worker = role.runsWorker ? PushWorker(pool: environment.pool, connectionString: environment.connectionString,
                                                  secretBox: secretBox, configuration: pipeline, logger: logger) : nil
        if let worker { services.append(WorkerService(worker: worker)) }
        if role.runsScheduler {
            var configuration = Scheduler.Configuration()
            configuration.grace = TimeInterval(environment.configuration.scheduleGraceSeconds)
            services.append(SchedulerService(scheduler: Scheduler(
                pool: environment.pool, connectionString: environment.connectionString,
                messages: MessageStore(pool: environment.pool, chunkSize: pipeline.chunkSize),
                configuration: configuration, logger: logger)))
        }
        // Worker and scheduler nodes keep the deliveries' day partitions (API-only nodes don't).
        if role.runsWorker || role.runsScheduler {
            services.append(PartitionService(partitions: DeliveryPartitions(
                pool: environment.pool, retentionDays: pipeline.retentionDays, logger: logger)))
        }
        if role.runsAPI {
            services.append(APIService(server: try startAPI(environment, pipeline: pipeline, secretBox: secretBox, worker: worker)))
        }
        return services
    }

    /// The API's HTTP server, listening; the API hands targeted chunks to `worker` when there is one.
    private static func startAPI(_ environment: RelayEnvironment, pipeline: PipelineConfiguration, secretBox: SecretBox,
                                 worker: PushWorker?) throws -> HTTPServer {
        let configuration = environment.configuration
        var dependencies = RelayAPIDependencies(
            pool: environment.pool, secretBox: secretBox, adminToken: try environment.adminToken(),
            logger: environment.logger, authCacheTTL: .seconds(configuration.authCacheSeconds))
        dependencies.chunkSize = pipeline.chunkSize
        dependencies.timeZone = configuration.timeZone
        dependencies.worker = worker
        dependencies.rateLimits = RateLimitSettings(
            defaultPerMinute: configuration.rateLimitPerMinute,
            authFailuresPerMinute: configuration.authFailuresPerMinute)
        dependencies.trustedProxies = configuration.trustedProxies
        dependencies.metricsToken = configuration.metricsToken
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
        let server = HTTPServer(configuration: serverConfiguration, responder: RelayAPI.router(dependencies), logger: environment.logger)
        _ = try server.start()
        return server
    }
}
