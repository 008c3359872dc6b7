import HTTPServer
import PostgresStore
import PushCore
import RelayCore

/// `GET /metrics`: Prometheus text. What was counted as it happened, plus readings taken
/// now: the push queue per lane (one query over the queue's partial indexes), messages in
/// progress, and the database pool. It names app keys (never secrets), so it is served to
/// the holder of the metrics token, or without one to this machine only (`MetricsAccess`).
struct MetricsRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let pool = context.dependencies.pool
        let registry = context.dependencies.metrics
        let logger = context.logger
        let access = MetricsAccess(token: context.dependencies.metricsToken)
        let gate = context.authenticationGate
        router.add("GET", "/metrics", { request, _ in
            let attempt = gate.attempt(request, as: .metrics)
            if let refused = gate.refusal(attempt) { return .tooManyFailures(refused) }
            switch access.verdict(peer: request.remoteAddress, headers: request.headers) {
            case .allowed: break
            case .wrongToken:
                await gate.tokenFailed(attempt)
                return .error(MetricsAccess.wrongTokenError)
            case .notLoopback:
                return .error(MetricsAccess.notLoopbackError)
            }
            var families = registry.snapshot()
            do {
                families += try await QueueMetrics.read(pool)
            } catch {
                // The rest is still worth scraping while the database is away.
                logger.warning("metrics: the queue could not be read", ["error": "\(error)"])
            }
            families += PoolMetrics.families(pool.usage)
            return HTTPResponse(status: 200, headers: ["Content-Type": PrometheusText.contentType],
                                body: Array(PrometheusText.render(families).utf8))
        })
    }
}

/// The database pool's use as gauges.
enum PoolMetrics {
    static func families(_ usage: PostgresPoolUsage) -> [MetricFamily] {
        [
            MetricFamily(name: RelayMetrics.dbPoolConnections, type: .gauge,
                         help: "Database pool connections (one per pool thread), busy or idle.",
                         samples: [(["state": "busy"], Double(usage.busy)), (["state": "idle"], Double(max(0, usage.size - usage.busy)))]),
            MetricFamily(name: RelayMetrics.dbPoolWaiting, type: .gauge, help: "Calls waiting for a database pool connection.",
                         samples: [([:], Double(usage.waiting))]),
        ]
    }
}

/// The push queue at scrape time, per lane.
enum QueueMetrics {
    static let lanes = ["targeted", "broadcast"]

    static func read(_ pool: PostgresPool) async throws -> [MetricFamily] {
        let (chunks, messages) = try await pool.withConnection { connection in
            let chunks = try connection.preparedQuery(MetricsStatements.queue)
            let messages = try connection.preparedQuery(MetricsStatements.messagesInProgress)
            return (chunks, messages)
        }
        var depth: [(MetricLabels, Double)] = []
        var oldest: [(MetricLabels, Double)] = []
        for lane in lanes {
            let row = chunks.first { $0["lane"] == lane }
            for state in ["ready", "delayed", "leased"] {
                depth.append((["lane": lane, "state": state], Double(row?[state] ?? "0") ?? 0))
            }
            oldest.append((["lane": lane], Double(row?["oldest"] ?? "0") ?? 0))
        }
        let progress: [(MetricLabels, Double)] = [MessageState.resolving, .sending].map(\.rawValue).map { state in
            (["state": state], Double(messages.first { $0["state"] == state }?["n"] ?? "0") ?? 0)
        }
        return [
            MetricFamily(name: RelayMetrics.queueChunks, type: .gauge,
                         help: "Push chunks not done, by lane and state (ready: due now; delayed: spread or backing off; leased: being sent).",
                         samples: depth),
            MetricFamily(name: RelayMetrics.queueOldest, type: .gauge,
                         help: "Seconds the oldest due chunk of the lane has waited for a worker (0 when none waits).", samples: oldest),
            MetricFamily(name: RelayMetrics.messagesInProgress, type: .gauge,
                         help: "Messages being resolved into chunks or sent.", samples: progress),
        ]
    }
}
