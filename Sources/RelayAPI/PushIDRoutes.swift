import Foundation
import HTTPServer
import RelayCore

/// `GET /v3/push/cid`: idempotency keys for `/v3/push` and `/v3/schedules`, in JPush's
/// `{appkey}-{uuid}` form.
struct PushIDRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        router.add("GET", "/v3/push/cid", context.appHandler { request, _, app in
            let query = QueryParameters(request.query)
            let count = try query.integer("count", in: 1...1000) ?? 1
            // Checked, not used: keys for pushes and for schedules look alike.
            _ = try query.choice("type", IDType.self)
            let list = (0..<count).map { _ in "\(app.appKey)-\(UUID().uuidString.lowercased())" }
            return try jsonResponse(200, encoding: ["cidlist": list])
        })
    }

    private enum IDType: String, CaseIterable {
        case push, schedule
    }
}
