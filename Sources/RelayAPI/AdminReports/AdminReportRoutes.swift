import Foundation
import HTTPServer
import PushCore
import RelayCore
import RelayStore

/// The admin reports across apps (`/admin/v1/messages`, `/admin/v1/stats`) and JPush's
/// `GET /v3/users` for one app.
struct AdminReportRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let reports = AdminReportRepository(pool: context.dependencies.pool)
        let pool = context.dependencies.pool
        let apps = context.apps

        router.add("GET", "/admin/v1/messages", context.adminHandler { request, _ in
            let listing = try MessageListing(query: request.query)
            let page = try await reports.messages(listing, apps: apps)
            return try jsonResponse(200, encoding: CursorPage(itemsKey: "messages", items: page.messages, next: page.next))
        })

        router.add("GET", "/admin/v1/messages/{msg_id}", context.adminHandler { _, parameters in
            let raw = parameters["msg_id"] ?? ""
            guard let id = MessageID(raw) else { throw JPushError.illegalValue("msg_id must be a positive 64-bit integer, got \(InputEcho.quoted(raw))") }
            guard let funnel = try await reports.funnel(id) else {
                throw JPushError(status: 404, code: 1008, message: "no message with msg_id \(raw)")
            }
            return try jsonResponse(200, encoding: funnel)
        })

        router.add("GET", "/admin/v1/stats", context.adminHandler { request, _ in
            let window = try ReportWindow(query: request.query, now: Date())
            let appKey = QueryParameters(request.query).string("app_key")
            return try jsonResponse(200, encoding: try await reports.deliveryStats(window, appKey: appKey))
        })

        router.add("GET", "/v3/users", context.reportHandler { request, _, app in
            let query = try UsersQuery(query: request.query)
            let activity = try await DeviceActivity.counts(appID: app.id, boundaries: query.boundaries, pool: pool)
            return try jsonResponse(200, encoding: UsersQuery.Answer(query: query, counts: activity))
        })
    }
}
