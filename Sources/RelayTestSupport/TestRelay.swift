import APNSClient
import EventLoops
import Foundation
import HTTPServer
import PostgresStore
import PushPipeline
import RelayAPI
import RelayCore
import RelayCrypto
import TestSupport
import WebhookClient

/// The relay as `serve` assembles it, in this process: a migrated database, the API on
/// 127.0.0.1 (port 0) and, when asked, a push worker beside it that the API hands targeted
/// chunks to. What the test targets' harnesses share; each adds its own client.
public final class TestRelay: Sendable {
    public struct Settings: Sendable {
        public var adminToken: String
        /// A database to use (one a test stops and starts); a fresh one when nil.
        public var database: String?
        public var poolSize = 4
        public var acquireTimeout: Duration = .seconds(10)
        public var maxBodySize = 1 << 20
        /// The API's and the worker's logger.
        public var logger = TestDatabase.quietLogger
        /// The pool's and the migrations' logger.
        public var storeLogger = TestDatabase.quietLogger
        /// Where the pipeline sends; the API's chunk size comes from it too.
        public var pipeline = PipelineConfiguration()
        public var runsWorker = false
        /// The worker's.
        public var clock: any PipelineClock = SystemClock()
        /// When set, a webhook delivery worker runs beside (`pipeline.webhooks` its settings).
        public var webhookClient: WebhookClientConfiguration?

        public init(adminToken: String) {
            self.adminToken = adminToken
        }
    }

    public let pool: PostgresPool
    public let databaseURL: String
    /// What the API sealed the apps' credentials with: a worker a test starts needs it.
    public let secretBox: SecretBox
    public let router: Router
    public let server: HTTPServer
    public let port: Int
    public let worker: PushWorker?
    private let workerTask: Task<Void, Never>?
    public let webhooks: WebhookDeliveryWorker?
    private let webhooksTask: Task<Void, Never>?

    private init(pool: PostgresPool, databaseURL: String, secretBox: SecretBox, router: Router, server: HTTPServer, port: Int,
                 worker: PushWorker?, workerTask: Task<Void, Never>?, webhooks: WebhookDeliveryWorker?, webhooksTask: Task<Void, Never>?) {
        self.pool = pool
        self.databaseURL = databaseURL
        self.secretBox = secretBox
        self.router = router
        self.server = server
        self.port = port
        self.worker = worker
        self.workerTask = workerTask
        self.webhooks = webhooks
        self.webhooksTask = webhooksTask
    }

    /// - Parameter tune: changes the API's dependencies before the router is made.
    public static func start(_ settings: Settings, tune: (inout RelayAPIDependencies) -> Void = { _ in }) async throws -> TestRelay {
        let url = if let database = settings.database { database } else { try await TestDatabase.fresh() }
        var poolConfiguration = PostgresPoolConfiguration(connectionString: url, size: settings.poolSize)
        poolConfiguration.acquireTimeout = settings.acquireTimeout
        let pool = PostgresPool(configuration: poolConfiguration, logger: settings.storeLogger)
        _ = try await Migrator.migrate(pool, logger: settings.storeLogger)
        let box = try SecretBox(key: SecureRandom.bytes(32))

        let worker = settings.runsWorker
            ? PushWorker(pool: pool, connectionString: url, secretBox: box, configuration: settings.pipeline, logger: settings.logger,
                         clock: settings.clock)
            : nil
        var dependencies = RelayAPIDependencies(pool: pool, secretBox: box, adminToken: settings.adminToken, logger: settings.logger)
        dependencies.chunkSize = settings.pipeline.chunkSize
        dependencies.liveActivityMinIntervalMS = settings.pipeline.liveActivityMinIntervalMS
        dependencies.worker = worker
        // Channel management and broadcasts go where the pipeline sends (the simulator serves all).
        var channels = LiveActivityChannelEndpoints(all: settings.pipeline.productionURL, caFile: settings.pipeline.caFile)
        channels.managementSandbox = settings.pipeline.sandboxURL
        channels.broadcastSandbox = settings.pipeline.sandboxURL
        dependencies.channelEndpoints = channels
        tune(&dependencies)
        var serverConfiguration = HTTPServerConfiguration()
        serverConfiguration.port = 0
        serverConfiguration.threads = 2
        serverConfiguration.maxBodySize = settings.maxBodySize
        let router = RelayAPI.router(dependencies)
        let server = HTTPServer(configuration: serverConfiguration, responder: router, logger: settings.logger)
        let port = try server.start()
        let workerTask = worker.map { worker in Task { await worker.run() } }
        let webhooks = try settings.webhookClient.map { client in
            WebhookDeliveryWorker(pool: pool, box: box, poster: try WebhookHTTPClient(group: .shared, configuration: client),
                                  configuration: settings.pipeline.webhooks, clock: settings.clock, logger: settings.logger)
        }
        let webhooksTask = webhooks.map { webhooks in Task { await webhooks.run() } }
        return TestRelay(pool: pool, databaseURL: url, secretBox: box, router: router, server: server, port: port,
                         worker: worker, workerTask: workerTask, webhooks: webhooks, webhooksTask: webhooksTask)
    }

    /// Stops in `serve`'s order: the API first (no push hands a chunk to a stopped worker),
    /// then the worker, then the pool.
    public func stop() async {
        await server.shutdown()
        worker?.stop()
        await workerTask?.value
        webhooks?.stop()
        await webhooksTask?.value
        await pool.close()
    }
}
