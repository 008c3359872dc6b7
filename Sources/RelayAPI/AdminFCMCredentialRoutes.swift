import HTTPServer
import RelayCore
import RelayStore

/// `/admin/v1/apps/{app_key}/fcm`: upload the app's Firebase service-account key file (the
/// JSON as the console downloads it, as the body), read its metadata (never the key), remove it.
struct AdminFCMCredentialRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let credentials = FCMCredentialRepository(pool: context.dependencies.pool, box: context.dependencies.secretBox)

        router.add("PUT", "/admin/v1/apps/{app_key}/fcm", context.adminHandler { request, parameters in
            let appKey = parameters["app_key"] ?? ""
            let account = try FCMCredentialRepository.parse(request.body)
            guard try await credentials.store(account, appKey: appKey), let stored = try await credentials.metadata(appKey: appKey) else {
                throw AdminAppRoutes.appNotFound(appKey)
            }
            return try jsonResponse(200, encoding: stored)
        })

        router.add("GET", "/admin/v1/apps/{app_key}/fcm", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            guard let stored = try await credentials.metadata(appKey: appKey) else { throw Self.noCredential(appKey) }
            return try jsonResponse(200, encoding: stored)
        })

        router.add("DELETE", "/admin/v1/apps/{app_key}/fcm", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            guard try await credentials.delete(appKey: appKey) else { throw Self.noCredential(appKey) }
            return try jsonResponse(200, encoding: AppShapes.Deleted(appKey: appKey))
        })
    }

    private static func noCredential(_ appKey: String) -> JPushError {
        JPushError(status: 404, code: 1008, message: "app \(InputEcho.quoted(appKey)) has no FCM credential (or does not exist)")
    }
}
