import HTTPServer
import PostgresStore
import RelayCore

/// `/healthz`: the process answers. `/readyz`: the database answers and its schema is current.
struct HealthRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        router.add("GET", "/healthz") { _, _ in jsonResponse(200, .object(["status": .string("ok")])) }
        let pool = context.dependencies.pool
        let migrations = context.dependencies.migrations
        let logger = context.logger
        router.add("GET", "/readyz") { request, _ in
            do {
                guard try await Migrator.isUpToDate(pool, migrations: migrations) else {
                    return HTTPResponse.error(JPushError(status: 503, code: 1030, message: "database schema is not up to date"))
                }
                return jsonResponse(200, .object(["status": .string("ready")]))
            } catch {
                return HTTPResponse.error(jpushError(for: error, logger: logger.with(["request_id": request.requestID])))
            }
        }
    }
}
