import Foundation
import HTTPServer
import RelayCore
import RelayStore

/// `GET /admin/v1/apps/{app_key}/devices`: an app's devices for its operators, filtered and
/// paged by keyset.
struct AdminDeviceRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let apps = context.apps
        let pool = context.dependencies.pool
        router.add("GET", "/admin/v1/apps/{app_key}/devices", context.adminHandler { request, parameters in
            let appKey = parameters["app_key"] ?? ""
            let listing = try DeviceListing(query: request.query)
            guard let appID = try await apps.id(appKey: appKey) else { throw AdminAppRoutes.appNotFound(appKey) }
            let page = try await listing.run(appID: appID, pool: pool)
            return try jsonResponse(200, encoding: CursorPage(itemsKey: "devices", items: page.devices, next: page.next))
        })
    }
}
