import Foundation
import HTTPServer
import PostgresStore
import RelayCore
import RelayStore

/// `/admin/v1/apps`: create, list, show, delete apps and rotate their master secrets.
struct AdminAppRoutes: Sendable {
    let context: RouteContext

    static func appNotFound(_ appKey: String) -> JPushError {
        JPushError(status: 404, code: 1008, message: "no app with app_key \(InputEcho.quoted(appKey))")
    }

    /// The `name` of a body that names what it creates (an app, a client key), trimmed.
    static func name(_ body: JSONObjectReader) throws -> String {
        let rawName = try body.string("name")
        let name = rawName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.utf8.count <= 255, rawName.count <= 255 else {
            throw JPushError.illegalValue("name must be 1 to 255 bytes of text")
        }
        return name
    }

    func register(in router: inout Router) {
        let apps = context.apps
        let credentials = context.credentials
        let authenticator = context.appAuthenticator

        router.add("POST", "/admin/v1/apps", context.adminHandler { request, _ in
            let body = try JSONObjectReader(request.body)
            try body.rejectUnknownKeys(allowed: ["name"])
            let name = try Self.name(body)
            let issued = IssuedSecret.issue()
            let record = try await createWithFreshKey { key in
                try await apps.create(appKey: key, name: name, secretHash: issued.hash)
            }
            return try jsonResponse(201, encoding: issued.answer(AppShapes.App(record), key: "master_secret"))
        })

        router.add("GET", "/admin/v1/apps", context.adminHandler { _, _ in
            try jsonResponse(200, encoding: ["apps": try await apps.list().map(AppShapes.App.init)])
        })

        router.add("GET", "/admin/v1/apps/{app_key}", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            guard let record = try await apps.find(appKey: appKey) else { throw Self.appNotFound(appKey) }
            return try jsonResponse(200, encoding: AppShapes.Shown(
                record: record, credentials: AppCredentials(try await credentials.metadata(appKey: appKey)),
                fcm: try await FCMCredentialRepository(pool: context.dependencies.pool, box: context.dependencies.secretBox).metadata(appKey: appKey),
                devices: try await DeviceCounts.read(appKey: appKey, pool: context.dependencies.pool)))
        })

        router.add("POST", "/admin/v1/apps/{app_key}/secret", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            let issued = IssuedSecret.issue()
            guard let record = try await apps.replaceSecretHash(appKey: appKey, secretHash: issued.hash) else {
                throw Self.appNotFound(appKey)
            }
            authenticator.forget(appKey: appKey)
            return try jsonResponse(200, encoding: issued.answer(AppShapes.App(record), key: "master_secret"))
        })

        router.add("DELETE", "/admin/v1/apps/{app_key}", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            guard try await apps.delete(appKey: appKey) else { throw Self.appNotFound(appKey) }
            authenticator.forget(appKey: appKey)
            return try jsonResponse(200, encoding: AppShapes.Deleted(appKey: appKey))
        })

        // Off by default: a client key is public, so an alias set from a phone lets anyone
        // claim another user's alias (docs/client-keys.md).
        router.add("PUT", "/admin/v1/apps/{app_key}/client-settings", context.adminHandler { request, parameters in
            let appKey = parameters["app_key"] ?? ""
            let body = try JSONObjectReader(request.body)
            try body.rejectUnknownKeys(allowed: ["client_may_set_alias"])
            guard let allowed = try body.optionalBool("client_may_set_alias") else {
                throw JPushError.missingParameter("client_may_set_alias (true or false) is required")
            }
            guard let record = try await apps.setClientMaySetAlias(appKey: appKey, allowed) else { throw Self.appNotFound(appKey) }
            return try jsonResponse(200, encoding: AppShapes.ClientSettings(record: record))
        })

        registerRateLimit(in: &router)
    }

    /// `PUT /admin/v1/apps/{app_key}/rate_limit` with `{"per_minute": n}`; null or absent restores the default.
    private func registerRateLimit(in router: inout Router) {
        let pool = context.dependencies.pool
        let authenticator = context.appAuthenticator
        let defaultLimit = context.dependencies.rateLimits.defaultPerMinute
        router.add("PUT", "/admin/v1/apps/{app_key}/rate_limit", context.adminHandler { request, parameters in
            let appKey = parameters["app_key"] ?? ""
            let body = try JSONObjectReader(request.body)
            try body.rejectUnknownKeys(allowed: ["per_minute"])
            let perMinute = try body.optionalInt("per_minute").map(Int.init)
            if let perMinute, !(1...1_000_000_000).contains(perMinute) {
                throw JPushError.illegalValue("per_minute must be from 1 to 1000000000, or null for the default")
            }
            let rows = try await pool.preparedQuery(AppRateLimitStatements.set, [appKey, perMinute.map(String.init)])
            guard !rows.isEmpty else { throw Self.appNotFound(appKey) }
            authenticator.forget(appKey: appKey)
            return try jsonResponse(200, encoding: AppShapes.RateLimit(appKey: appKey, perMinute: perMinute ?? defaultLimit, isDefault: perMinute == nil))
        })
    }

    /// A fresh random app key; a collision (one in 2^96) just draws another.
    private func createWithFreshKey(_ insert: (String) async throws -> AppRecord) async throws -> AppRecord {
        for attempt in 1...3 {
            do {
                return try await insert(AppKey.generate())
            } catch PostgresError.server(let state, _) where state == .uniqueViolation && attempt < 3 {
                continue
            }
        }
        throw JPushError.internalError("could not draw a unique app_key")
    }
}
