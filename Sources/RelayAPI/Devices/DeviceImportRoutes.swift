import Foundation
import HTTPServer
import RelayCore

/// `POST /v3/devices/import` (extension): bulk registration for teams moving from another
/// provider, as NDJSON or CSV, up to the relay's body limit per request.
struct DeviceImportRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let pool = context.dependencies.pool
        let logger = context.logger
        // The merge is CPU-bound inside PostgreSQL: as many partitions as the pool runs bulk
        // work at once (one per core, never its last thread, which stays for API calls).
        let partitions = pool.bulkLimit
        // Parsing has threads of its own: sharing the slow-hash threads would hold up logins.
        let parsers = SlowWork(width: ProcessInfo.processInfo.activeProcessorCount)
        router.add("POST", "/v3/devices/import", context.deviceHandler { request, _, app in
            guard let format = DeviceImportFormat(contentType: request.headers["content-type"]) else {
                throw DeviceFamily.illegal("Content-Type must be application/x-ndjson (one POST /v3/devices body per line) or text/csv (\(DeviceImportFormat.csvHeader)), got \(InputEcho.quoted(request.headers["content-type"] ?? ""))")
            }
            guard !request.body.isEmpty else { throw DeviceFamily.illegal("the import body is empty") }
            let importer = DeviceImporter(appID: app.id, format: format, partitions: partitions)
            do {
                let summary = try await importer.run(request.body, pool: pool, parsers: parsers)
                return try jsonResponse(200, encoding: summary)
            } catch let failure as DeviceImportFailure {
                guard let partial = failure.partialStorage else { throw failure.cause }
                var error = DeviceFamily.translate(failure.cause, logger: logger.with(["request_id": request.requestID]))
                error.message += "; " + partial
                throw error
            }
        })
    }
}
