import Foundation
import HTTPServer
import RelayCore
import RelayStore

/// `/v3/tags`: list tags, check, add and remove devices, delete a tag.
struct TagRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let devices = DeviceRepository(pool: context.dependencies.pool)

        router.add("GET", "/v3/tags", context.deviceHandler { _, _, app in
            try jsonResponse(200, encoding: ["tags": try await devices.tags(appID: app.id)])
        })

        router.add("GET", "/v3/tags/{tag}/registration_ids/{registration_id}", context.deviceHandler { _, parameters, app in
            let tag = try DeviceLabel.pathParameter(parameters, kind: "tag")
            let rid = parameters["registration_id"] ?? ""
            guard let result = try await devices.hasTag(appID: app.id, tag: tag, rid: rid) else {
                throw DeviceRepository.unknownRegistrationID(rid)
            }
            return try jsonResponse(200, encoding: ["result": result])
        })

        router.add("POST", "/v3/tags/{tag}", context.deviceHandler { request, parameters, app in
            let tag = try DeviceLabel.pathParameter(parameters, kind: "tag")
            let change = try RegistrationIDChange(try JSONObjectReader(request.body), allowAdd: true)
            try await devices.changeTag(appID: app.id, tag: tag, change)
            return emptySuccess
        })

        router.add("DELETE", "/v3/tags/{tag}", context.deviceHandler { request, parameters, app in
            let tag = try DeviceLabel.pathParameter(parameters, kind: "tag")
            let platforms = try PlatformParameter.platforms(request.query["platform"])
            if !platforms.isEmpty { try await devices.deleteTag(appID: app.id, tag: tag, platforms: platforms) }
            return emptySuccess
        })
    }
}
