import Foundation
import HTTPServer
import RelayCore

/// `/admin/v1/apps/{app_key}/apns`: upload, read (metadata only) and remove APNs credentials.
struct AdminCredentialRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let credentials = context.credentials

        router.add("PUT", "/admin/v1/apps/{app_key}/apns", context.adminHandler { request, parameters in
            let appKey = parameters["app_key"] ?? ""
            let credential = try APNSCredential.parse(request.body, now: Date())
            guard try await credentials.store(credential, appKey: appKey) else { throw AdminAppRoutes.appNotFound(appKey) }
            guard let metadata = try await credentials.metadata(appKey: appKey) else { throw AdminAppRoutes.appNotFound(appKey) }
            return jsonResponse(200, metadata)
        })

        router.add("GET", "/admin/v1/apps/{app_key}/apns", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            guard let metadata = try await credentials.metadata(appKey: appKey) else {
                throw JPushError(status: 404, code: 1008, message: "app \"\(appKey)\" has no APNs credential (or does not exist)")
            }
            return jsonResponse(200, metadata)
        })

        router.add("DELETE", "/admin/v1/apps/{app_key}/apns", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            guard try await credentials.delete(appKey: appKey) else {
                throw JPushError(status: 404, code: 1008, message: "app \"\(appKey)\" has no APNs credential (or does not exist)")
            }
            return jsonResponse(200, ["app_key": appKey, "deleted": true])
        })
    }
}
