import Foundation
import HTTPServer
import PushPipeline
import PostgresStore
import RelayCore
import RelayCrypto
import RelayStore

/// What the routes need, built once by `pushrelay serve`.
public struct RelayAPIDependencies: Sendable {
    public var pool: PostgresPool
    public var secretBox: SecretBox
    public var adminToken: String
    public var logger: Logger
    public var authCacheTTL: Duration
    /// The schema `/readyz` expects to find applied.
    public var migrations: [Migration]
    /// Devices per push chunk, for the targeted pushes the API resolves itself.
    public var chunkSize = PipelineConfiguration.defaultChunkSize
    /// Days receipts are taken for after their message was accepted: the worker's
    /// `PUSHRELAY_RETENTION_DAYS`, after which a day's per-device records are dropped.
    public var retentionDays = PipelineConfiguration.defaultRetentionDays
    /// The pacing of a Live Activity's updates: the worker's `PUSHRELAY_LIVE_ACTIVITY_MIN_INTERVAL_MS`.
    public var liveActivityMinIntervalMS = PipelineConfiguration().liveActivityMinIntervalMS
    /// The zone of schedule triggers that name none.
    public var timeZone: TimeZone = TimeZone(identifier: "UTC")!
    /// The clock schedules are checked against; tests move it.
    public var clock: @Sendable () -> Date = { Date() }
    /// Where requests and accepted pushes are counted, and what `/metrics` shows.
    public var metrics: MetricsRegistry = .shared
    /// The per-app request limit and the per-address limit on failed authentications.
    public var rateLimits = RateLimitSettings()
    /// Proxies whose `X-Forwarded-For` / `Forwarded` name the client (`ClientAddressResolver`).
    public var trustedProxies: [IPNetwork] = []
    /// The bearer token `/metrics` asks for; nil serves it to loopback clients only.
    public var metricsToken: String?
    /// The API listener speaks HTTPS itself: dashboard cookies are marked `Secure`.
    public var servesTLS = false
    /// The worker of this process (role `all`): a targeted push of one chunk is leased to it
    /// as it is accepted, skipping the NOTIFY and the lease (`MessageStore`).
    public var worker: (any HandoffReceiver)?
    /// Where the process's worker and scheduler loops beat: a stalled one fails `/healthz`
    /// and `/readyz`. Nil: the process runs no such loop.
    public var liveness: Liveness?
    /// APNs' endpoints for Live Activity broadcast channels (Apple's unless configured).
    public var channelEndpoints = LiveActivityChannelEndpoints()

    public init(pool: PostgresPool, secretBox: SecretBox, adminToken: String, logger: Logger,
                authCacheTTL: Duration = .seconds(60), migrations: [Migration] = EmbeddedMigrations.all) {
        self.pool = pool
        self.secretBox = secretBox
        self.adminToken = adminToken
        self.logger = logger
        self.authCacheTTL = authCacheTTL
        self.migrations = migrations
    }
}

/// The relay's REST API: every route, in one table.
public enum RelayAPI {
    public static func router(_ dependencies: RelayAPIDependencies) -> Router {
        let context = RouteContext(dependencies)
        var router = Router(rejections: JPushRejection.responder)
        HealthRoutes(context: context).register(in: &router)
        AdminAppRoutes(context: context).register(in: &router)
        AdminCredentialRoutes(context: context).register(in: &router)
        AdminFCMCredentialRoutes(context: context).register(in: &router)
        ClientKeyAdminRoutes(context: context).register(in: &router)
        WebhookAdminRoutes(context: context).register(in: &router)
        ClientDeviceRoutes(context: context).register(in: &router)
        ClientReceiptRoutes(context: context).register(in: &router)
        ClientLiveActivityRoutes(context: context).register(in: &router)
        PushIDRoutes(context: context).register(in: &router)
        DeviceRegistryRoutes(context: context).register(in: &router)
        ReportRoutes(context: context).register(in: &router)
        PushRoutes(context: context).register(in: &router)
        LiveActivityRoutes(context: context).register(in: &router)
        GroupPushRoutes(context: context).register(in: &router)
        GroupReportRoutes(context: context).register(in: &router)
        AdminGroupRoutes(context: context).register(in: &router)
        ScheduleRoutes(context: context).register(in: &router)
        LiveActivityChannelRoutes(context: context).register(in: &router)
        AdminReportRoutes(context: context).register(in: &router)
        MetricsRoutes(context: context).register(in: &router)
        DashboardRoutes(context: context).register(in: &router)
        router.observer = HTTPMetrics(registry: dependencies.metrics).observe
        return router
    }

    /// What a process without the API (`serve --role worker`, `--role scheduler`) answers on
    /// its listener: `/healthz`, `/readyz` and `/metrics`, and JPush's 404 for anything else.
    public static func observerRouter(_ dependencies: RelayAPIDependencies) -> Router {
        let context = RouteContext(dependencies)
        var router = Router(rejections: JPushRejection.responder)
        HealthRoutes(context: context).register(in: &router)
        MetricsRoutes(context: context).register(in: &router)
        router.observer = HTTPMetrics(registry: dependencies.metrics).observe
        return router
    }
}

/// The shared pieces each group of routes works with.
struct RouteContext: Sendable {
    let dependencies: RelayAPIDependencies
    let apps: AppRepository
    let credentials: CredentialRepository
    let admin: AdminAuthorizer
    let appAuthenticator: AppAuthenticator
    let slowWork: SlowWork
    let messages: MessageStore
    let rateLimiter: RateLimiter
    let requestCounter: RequestCounter
    let authenticationGate: AuthenticationGate
    /// Device registrations (`POST /v3/devices`, `POST /client/v1/devices`), batched together.
    let registrar: DeviceRegistrar
    /// APNs clients for Live Activity broadcast channels.
    let channelGateway: LiveActivityChannelGateway

    var logger: Logger { dependencies.logger }

    init(_ dependencies: RelayAPIDependencies) {
        self.dependencies = dependencies
        apps = AppRepository(pool: dependencies.pool)
        credentials = CredentialRepository(pool: dependencies.pool, box: dependencies.secretBox)
        admin = AdminAuthorizer(token: dependencies.adminToken)
        slowWork = SlowWork()
        messages = MessageStore(pool: dependencies.pool, chunkSize: dependencies.chunkSize, handoffs: dependencies.worker)
        rateLimiter = RateLimiter(settings: dependencies.rateLimits, clock: dependencies.clock)
        requestCounter = RequestCounter(pool: dependencies.pool, clock: dependencies.clock)
        authenticationGate = AuthenticationGate(limiter: rateLimiter, resolver: ClientAddressResolver(trustedProxies: dependencies.trustedProxies),
                                                tokenFailureDelay: dependencies.rateLimits.tokenFailureDelay)
        appAuthenticator = AppAuthenticator(pool: dependencies.pool, slowWork: slowWork, cacheTTL: dependencies.authCacheTTL)
        // A quarter of the pool: bigger batches, and connections left for the app look-ups
        // and request counts of the registrations waiting (measured against the whole pool:
        // 0.68 of pgbench and a p99 of 53 ms against 0.53 and 195 ms; docs/scaling.md).
        registrar = DeviceRegistrar(repository: DeviceRepository(pool: dependencies.pool), maxInFlight: max(1, dependencies.pool.size / 4))
        channelGateway = LiveActivityChannelGateway(endpoints: dependencies.channelEndpoints, logger: dependencies.logger)
    }

    /// A route under `/admin/v1`: the admin token is checked before the body runs, under the
    /// failure limit for (client address, admin token).
    func adminHandler(_ body: @escaping @Sendable (HTTPRequest, RouteParameters) async throws -> HTTPResponse) -> Router.Handler {
        let admin = admin
        let gate = authenticationGate
        return handler(logger) { request, parameters in
            let attempt = gate.attempt(request, as: .admin)
            if let refused = gate.refusal(attempt) { return .tooManyFailures(refused) }
            do {
                try admin.authorize(request.headers["authorization"])
            } catch {
                await gate.tokenFailed(attempt)
                throw error
            }
            return try await body(request, parameters)
        }
    }

    /// A `/v3` route: Basic `app_key:master_secret` is checked first; `failure` is the 401 in
    /// the route family's code.
    ///
    /// A client address past its failed authentications this minute for the app key it
    /// presents, or past its failed secrets over every key (unless its credentials were
    /// verified recently), is answered 429/2002 with `Retry-After` before its credentials
    /// are checked.
    /// An authenticated request counts against its app's limit, on every node together
    /// (`RequestCounter`; 429/2002 past it), and its response carries the `X-Rate-Limit-*` headers.
    func appHandler(
        failure: JPushError = .authenticationFailed("authentication failed: Basic app_key:master_secret required"),
        _ body: @escaping @Sendable (HTTPRequest, RouteParameters, AuthenticatedApp) async throws -> HTTPResponse
    ) -> Router.Handler {
        let authenticator = appAuthenticator
        let counter = requestCounter
        let defaultLimit = dependencies.rateLimits.defaultPerMinute
        let gate = authenticationGate
        let logger = logger
        return { request, parameters in
            let credentials = BasicCredentials(authorization: request.headers["authorization"])
            let attempt = gate.attempt(request, as: .app(credentials.map(\.user).flatMap { AppKey.isWellFormed($0) ? $0 : nil } ?? ""))
            if let refused = gate.secretRefusal(attempt, recentlyVerified: { credentials.map(authenticator.recentlyVerified) ?? false }) {
                return .tooManyFailures(refused)
            }
            let app: AuthenticatedApp
            let decision: FixedWindowCounter.Decision
            do {
                app = try await authenticator.authenticate(credentials, failure: failure)
                decision = try await counter.take(app.appKey, limit: app.rateLimitPerMinute ?? defaultLimit)
            } catch {
                if let refused = error as? JPushError, refused == failure {
                    gate.secretFailed(attempt)
                }
                return .error(jpushError(for: error, logger: logger.with(["request_id": request.requestID])))
            }
            var response: HTTPResponse
            if decision.allowed {
                response = await handler(logger) { request, parameters in
                    try await body(request, parameters, app)
                }(request, parameters)
            } else {
                response = .error(RateLimiter.tooManyRequests())
            }
            response.addRateLimitHeaders(decision)
            return response
        }
    }
}
