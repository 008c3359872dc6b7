import Foundation
import HTTPServer
import RelayCore
import RelayStore

/// `/admin/v1/apps/{app_key}/client-keys`: issue, list and revoke an app's client keys. The
/// key is shown once, in the answer that issues it; a revocation holds from the next request
/// on every node (each registration reads the key's row).
struct ClientKeyAdminRoutes: Sendable {
    let context: RouteContext

    static func keyNotFound(_ id: String) -> JPushError {
        JPushError(status: 404, code: 1008, message: "the app has no client key \(InputEcho.quoted(id))")
    }

    func register(in router: inout Router) {
        let keys = ClientKeyRepository(pool: context.dependencies.pool)

        router.add("POST", "/admin/v1/apps/{app_key}/client-keys", context.adminHandler { request, parameters in
            let appKey = parameters["app_key"] ?? ""
            let body = try JSONObjectReader(request.body)
            try body.rejectUnknownKeys(allowed: ["name"])
            let name = try AdminAppRoutes.name(body)
            let (key, hash) = ClientKeyText.issue()
            guard let record = try await keys.create(appKey: appKey, keyID: key.keyID, name: name, secretHash: hash) else {
                throw AdminAppRoutes.appNotFound(appKey)
            }
            return try jsonResponse(201, encoding: ClientKeyShapes.Issued(key: ClientKeyShapes.Key(record), clientKey: key.text))
        })

        router.add("GET", "/admin/v1/apps/{app_key}/client-keys", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            guard let records = try await keys.list(appKey: appKey) else { throw AdminAppRoutes.appNotFound(appKey) }
            return try jsonResponse(200, encoding: ["client_keys": records.map(ClientKeyShapes.Key.init)])
        })

        router.add("DELETE", "/admin/v1/apps/{app_key}/client-keys/{id}", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            let id = parameters["id"] ?? ""
            guard ClientKeyText.isKeyID(Substring(id)), let record = try await keys.revoke(appKey: appKey, keyID: id) else {
                throw Self.keyNotFound(id)
            }
            return try jsonResponse(200, encoding: ClientKeyShapes.Key(record))
        })
    }
}

/// The answers about client keys.
enum ClientKeyShapes {
    /// A key's metadata: never its secret.
    struct Key: Encodable {
        var id: String
        var name: String
        var createdAt: String
        var revokedAt: String?
        var lastUsedAt: String?

        init(_ record: ClientKeyRecord) {
            id = record.id
            name = record.name
            createdAt = record.createdAt
            revokedAt = record.revokedAt
            lastUsedAt = record.lastUsedAt
        }

        /// Absent times are null, not left out.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnswerKey.self)
            try container.encode(id, forKey: "id")
            try container.encode(name, forKey: "name")
            try container.encode(createdAt, forKey: "created_at")
            try container.encode(revokedAt, forKey: "revoked_at")
            try container.encode(lastUsedAt, forKey: "last_used_at")
        }
    }

    /// The answer that issues a key: its metadata and, this once, the key itself.
    struct Issued: Encodable {
        var key: Key
        var clientKey: String

        func encode(to encoder: any Encoder) throws {
            try key.encode(to: encoder)
            var container = encoder.container(keyedBy: AnswerKey.self)
            try container.encode(clientKey, forKey: "client_key")
        }
    }

    /// `POST /client/v1/devices`: the device's registration id and, this once, its secret.
    struct Registered: Encodable {
        var registrationID: String
        var deviceSecret: String

        enum CodingKeys: String, CodingKey { case registrationID = "registration_id", deviceSecret = "device_secret" }
    }
}
