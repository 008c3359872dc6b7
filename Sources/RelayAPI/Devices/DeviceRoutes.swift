import Foundation
import HTTPServer
import RelayCore
import RelayStore

/// `/v3/devices`: register a token (extension), read and change a device, online status.
struct DeviceRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let devices = DeviceRepository(pool: context.dependencies.pool)

        router.add("POST", "/v3/devices", context.deviceHandler { request, _, app in
            let registration = try DeviceRegistration(try JSONObjectReader(request.body))
            let rid = try await devices.register(appID: app.id, registration)
            return jsonResponse(200, ["registration_id": rid])
        })

        router.add("GET", "/v3/devices/{registration_id}", context.deviceHandler { _, parameters, app in
            let rid = parameters["registration_id"] ?? ""
            guard let info = try await devices.info(appID: app.id, rid: rid) else { throw DeviceRepository.unknownRegistrationID(rid) }
            let json: [String: Any] = ["tags": info.tags, "alias": info.alias as Any? ?? NSNull(), "mobile": info.mobile as Any? ?? NSNull()]
            return jsonResponse(200, json)
        })

        router.add("POST", "/v3/devices/{registration_id}", context.deviceHandler { request, parameters, app in
            let rid = parameters["registration_id"] ?? ""
            let update = try DeviceUpdate(try JSONObjectReader(request.body))
            guard try await devices.update(appID: app.id, rid: rid, update) else { throw DeviceRepository.unknownRegistrationID(rid) }
            return emptySuccess
        })

        router.add("POST", "/v3/devices/status", context.deviceHandler { request, _, app in
            let body = try JSONObjectReader(request.body)
            try body.rejectUnknownKeys(allowed: ["registration_ids"])
            guard body.has("registration_ids") else { throw JPushError.missingParameter("registration_ids is required") }
            let rids = try RegistrationIDChange.list(body.fields["registration_ids"], field: "registration_ids")
            guard !rids.isEmpty else { throw DeviceFieldError("registration_ids must name at least one device") }
            let status = try await devices.status(appID: app.id, rids: rids)
            var json: [String: Any] = [:]
            for (rid, entry) in status {
                json[rid] = ["online": entry.online, "last_online_time": entry.lastSeen]
            }
            return jsonResponse(200, json)
        })
    }
}
