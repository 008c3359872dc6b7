import HTTPServer
import RelayCore

/// `POST /v3/devices/import` (extension): bulk registration for teams moving from another
/// provider, as NDJSON or CSV, up to the relay's body limit per request.
struct DeviceImportRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let pool = context.dependencies.pool
        router.add("POST", "/v3/devices/import", context.deviceHandler { request, _, app in
            guard let format = DeviceImportFormat(contentType: request.headers["content-type"]) else {
                throw DeviceFamily.illegal("Content-Type must be application/x-ndjson (one POST /v3/devices body per line) or text/csv (\(DeviceImportFormat.csvHeader)), got \"\(request.headers["content-type"] ?? "")\"")
            }
            guard !request.body.isEmpty else { throw DeviceFamily.illegal("the import body is empty") }
            let importer = DeviceImporter(appID: app.id, format: format)
            let body = request.body
            let summary = try await pool.withConnection { try importer.run(body, on: $0) }
            return jsonResponse(200, summary.json)
        })
    }
}
