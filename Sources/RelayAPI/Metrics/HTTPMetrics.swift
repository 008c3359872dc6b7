import PushPipeline
import RelayCore

/// Counts every request by method, route pattern (not path: ids would make a series per
/// device) and status, with its latency.
struct HTTPMetrics: Sendable {
    let registry: MetricsRegistry

    private static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

    func observe(method: String, route: String?, status: Int, seconds: Double) {
        let method = Self.methods.contains(method) ? method : "other"
        let route = route ?? "unmatched"
        registry.increment(RelayMetrics.httpRequests, ["method": method, "route": route, "status": String(status)])
        registry.observe(RelayMetrics.httpDuration, ["method": method, "route": route], seconds)
    }
}

extension RouteContext {
    /// Counts a push accepted for the first time (a repeated cid is not a new push).
    func countAccepted(_ accepted: MessageStore.Accepted, appKey: String) {
        guard accepted.isNew else { return }
        let metrics = dependencies.metrics
        metrics.increment(RelayMetrics.pushesAccepted, ["app_key": metrics.bounded("app_key", appKey)])
    }
}
