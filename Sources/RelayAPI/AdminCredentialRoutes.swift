import Foundation
import HTTPServer
import RelayCore
import RelayStore

/// `/admin/v1/apps/{app_key}/apns[/{environment}]`: upload, read (metadata only) and remove
/// APNs credentials. Each environment (`sandbox`, `production`) has its own; the path without
/// one addresses both: PUT sets both to the same credential, GET shows both, DELETE removes both.
struct AdminCredentialRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let credentials = context.credentials

        router.add("PUT", "/admin/v1/apps/{app_key}/apns", context.adminHandler { request, parameters in
            let appKey = parameters["app_key"] ?? ""
            let credential = try APNSCredential.parse(request.body, now: Date())
            guard try await credentials.store(credential, appKey: appKey, environments: DeviceEnvironment.allCases),
                  let both = AppCredentials(try await credentials.metadata(appKey: appKey))
            else { throw AdminAppRoutes.appNotFound(appKey) }
            return try jsonResponse(200, encoding: both)
        })

        router.add("GET", "/admin/v1/apps/{app_key}/apns", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            guard let both = AppCredentials(try await credentials.metadata(appKey: appKey)) else { throw Self.noCredential(appKey) }
            return try jsonResponse(200, encoding: both)
        })

        router.add("DELETE", "/admin/v1/apps/{app_key}/apns", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            guard try await credentials.delete(appKey: appKey, environments: DeviceEnvironment.allCases) else {
                throw Self.noCredential(appKey)
            }
            return try jsonResponse(200, encoding: AppShapes.Deleted(appKey: appKey))
        })

        router.add("PUT", "/admin/v1/apps/{app_key}/apns/{environment}", context.adminHandler { request, parameters in
            let appKey = parameters["app_key"] ?? ""
            let environment = try Self.environment(parameters)
            let credential = try APNSCredential.parse(request.body, now: Date())
            guard try await credentials.store(credential, appKey: appKey, environments: [environment]),
                  let stored = try await credentials.metadata(appKey: appKey, environments: [environment]).first
            else { throw AdminAppRoutes.appNotFound(appKey) }
            return try jsonResponse(200, encoding: stored)
        })

        router.add("GET", "/admin/v1/apps/{app_key}/apns/{environment}", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            let environment = try Self.environment(parameters)
            guard let stored = try await credentials.metadata(appKey: appKey, environments: [environment]).first else {
                throw Self.noCredential(appKey, environment)
            }
            return try jsonResponse(200, encoding: stored)
        })

        router.add("DELETE", "/admin/v1/apps/{app_key}/apns/{environment}", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            let environment = try Self.environment(parameters)
            guard try await credentials.delete(appKey: appKey, environments: [environment]) else {
                throw Self.noCredential(appKey, environment)
            }
            return try jsonResponse(200, encoding: AppShapes.Deleted(appKey: appKey, environment: environment))
        })
    }

    /// The path's environment; any other name is a path that does not exist.
    private static func environment(_ parameters: RouteParameters) throws(JPushError) -> DeviceEnvironment {
        let name = parameters["environment"] ?? ""
        guard let environment = DeviceEnvironment(rawValue: name) else {
            throw JPushError.notFound("no APNs environment \(InputEcho.quoted(name)): it is sandbox or production")
        }
        return environment
    }

    private static func noCredential(_ appKey: String, _ environment: DeviceEnvironment? = nil) -> JPushError {
        let which = environment.map { "\($0.rawValue) " } ?? ""
        return JPushError(status: 404, code: 1008, message: "app \(InputEcho.quoted(appKey)) has no \(which)APNs credential (or does not exist)")
    }
}
