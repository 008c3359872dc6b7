import Foundation
import HTTPServer
import RelayCore

/// `GET /v3/push/cid`: idempotency keys for `/v3/push` and `/v3/schedules`, in JPush's
/// `{appkey}-{uuid}` form.
struct PushIDRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        router.add("GET", "/v3/push/cid", context.appHandler { request, _, app in
            let count: Int
            if let raw = request.query["count"] {
                guard let number = Int(raw), (1...1000).contains(number) else {
                    throw JPushError.illegalValue("count must be a whole number from 1 to 1000, got \"\(raw)\"")
                }
                count = number
            } else {
                count = 1
            }
            let type = request.query["type"] ?? "push"
            guard type == "push" || type == "schedule" else {
                throw JPushError.illegalValue("type must be \"push\" or \"schedule\", got \"\(type)\"")
            }
            let list = (0..<count).map { _ in "\(app.appKey)-\(UUID().uuidString.lowercased())" }
            return jsonResponse(200, ["cidlist": list])
        })
    }
}
