import Foundation
import HTTPServer
import RelayCore
import RelayStore

/// `/v3/devices`: register a token (extension), read and change a device, online status.
struct DeviceRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let devices = DeviceRepository(pool: context.dependencies.pool)
        let registrar = context.registrar

        router.add("POST", "/v3/devices", context.deviceHandler { request, _, app in
            let body = try JSONObjectReader(request.body)
            if let kind = try PushTokenRegistration.kind(in: body) {
                let registration = try PushTokenRegistration(body, kind: kind)
                try await devices.register(appID: app.id, registration)
                return try jsonResponse(200, encoding: ["registration_id": registration.registrationID])
            }
            let registration = try DeviceRegistration(body)
            let rid = try await registrar.register(appID: app.id, registration)
            return try jsonResponse(200, encoding: ["registration_id": rid])
        })

        router.add("GET", "/v3/devices/{registration_id}", context.deviceHandler { _, parameters, app in
            let rid = parameters["registration_id"] ?? ""
            guard let info = try await devices.info(appID: app.id, rid: rid) else { throw DeviceRepository.unknownRegistrationID(rid) }
            return try jsonResponse(200, encoding: DeviceInfo(tags: info.tags, alias: info.alias, mobile: info.mobile))
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
            return try jsonResponse(200, encoding: status.mapValues { DeviceOnline(online: $0.online, lastOnlineTime: $0.lastSeen) })
        })
    }
}

/// `GET /v3/devices/{registration_id}`: alias and mobile are null when not set.
struct DeviceInfo: Encodable {
    var tags: [String]
    var alias: String?
    var mobile: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnswerKey.self)
        try container.encode(tags, forKey: "tags")
        try container.encode(alias, forKey: "alias")
        try container.encode(mobile, forKey: "mobile")
    }
}

/// One device's entry in `POST /v3/devices/status`.
struct DeviceOnline: Encodable {
    var online: Bool
    var lastOnlineTime: String

    enum CodingKeys: String, CodingKey { case online, lastOnlineTime = "last_online_time" }
}
