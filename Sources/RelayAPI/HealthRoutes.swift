import HTTPServer
import PostgresStore
import RelayCore

/// `/healthz`: the process answers and none of its worker or scheduler loops is stalled (a
/// hung process fails it, so its supervisor restarts it). `/readyz`: that, and the database
/// answers with its schema current. Every role serves both.
struct HealthRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let liveness = context.dependencies.liveness
        router.add("GET", "/healthz") { _, _ in
            if let stalled = Self.stalled(liveness) { return HTTPResponse.error(stalled) }
            return jsonResponse(200, .object(["status": .string("ok")]))
        }
        let pool = context.dependencies.pool
        let migrations = context.dependencies.migrations
        let logger = context.logger
        router.add("GET", "/readyz") { request, _ in
            do {
                guard try await Migrator.isUpToDate(pool, migrations: migrations) else {
                    return HTTPResponse.error(JPushError(status: 503, code: 1030, message: "database schema is not up to date"))
                }
                if let stalled = Self.stalled(liveness) { return HTTPResponse.error(stalled) }
                return jsonResponse(200, .object(["status": .string("ready")]))
            } catch {
                return HTTPResponse.error(jpushError(for: error, logger: logger.with(["request_id": request.requestID])))
            }
        }
    }

    /// The 503 of a process whose loops did not come round in time, naming them.
    private static func stalled(_ liveness: Liveness?) -> JPushError? {
        guard let liveness else { return nil }
        let stalled = liveness.stalled
        guard !stalled.isEmpty else { return nil }
        return JPushError(status: 503, code: 1030, message: "stalled: \(stalled.joined(separator: ", ")) did not come round within "
                          + "\(liveness.allowance.components.seconds) s of its wait")
    }
}
