import Foundation
import HTTPServer
import RelayCore
import RelayStore

/// `/v3/aliases`: the devices of an alias, removing devices from it, deleting it.
/// One alias per device, many devices per alias.
struct AliasRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let devices = DeviceRepository(pool: context.dependencies.pool)

        router.add("GET", "/v3/aliases/{alias}", context.deviceHandler { request, parameters, app in
            let alias = try DeviceLabel.pathParameter(parameters, kind: "alias")
            let platforms = try PlatformParameter.platforms(request.query["platform"])
            let ids = platforms.isEmpty ? [] : try await devices.devices(appID: app.id, alias: alias, platforms: platforms)
            return try jsonResponse(200, encoding: ["registration_ids": ids])
        })

        router.add("POST", "/v3/aliases/{alias}", context.deviceHandler { request, parameters, app in
            let alias = try DeviceLabel.pathParameter(parameters, kind: "alias")
            let change = try RegistrationIDChange(try JSONObjectReader(request.body), allowAdd: false)
            try await devices.removeAlias(appID: app.id, alias: alias, rids: change.remove)
            return emptySuccess
        })

        router.add("DELETE", "/v3/aliases/{alias}", context.deviceHandler { request, parameters, app in
            let alias = try DeviceLabel.pathParameter(parameters, kind: "alias")
            let platforms = try PlatformParameter.platforms(request.query["platform"])
            if !platforms.isEmpty { try await devices.deleteAlias(appID: app.id, alias: alias, platforms: platforms) }
            return emptySuccess
        })
    }
}
