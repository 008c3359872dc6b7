import PostgresStore
import RelayCore

/// A client key as the admin API lists it (never its secret).
public struct ClientKeyRecord: Sendable, Equatable {
    /// The key's public id (`key_id`), as `DELETE …/client-keys/{id}` names it.
    public var id: String
    public var name: String
    public var createdAt: String
    public var revokedAt: String?
    public var lastUsedAt: String?
}

/// A client key in force, as a registration through it needs it.
public struct ClientKeyCredential: Sendable, Equatable {
    /// The row id, which device secrets point at.
    public var rowID: Int64
    public var appID: Int64
    public var secretHash: String
}

/// A device registered through a client key, as a request with its secret needs it.
public struct DeviceSecretCredential: Sendable, Equatable {
    public var deviceID: Int64
    public var appID: Int64
    public var platform: DevicePlatform
    public var secretHash: String
    /// The app lets its devices set their own alias and tags (`client_may_set_alias`).
    public var maySetLabels: Bool
}

/// The `client_keys` and `device_secrets` tables (`ClientKeyStatements`).
public struct ClientKeyRepository: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    private static func record(_ row: PostgresRow) throws -> ClientKeyRecord {
        ClientKeyRecord(id: try row.string("key_id"), name: try row.string("name"), createdAt: try row.string("created_at"),
                        revokedAt: row["revoked_at"], lastUsedAt: row["last_used_at"])
    }

    /// Nil when the app does not exist.
    public func create(appKey: String, keyID: String, name: String, secretHash: String) async throws -> ClientKeyRecord? {
        try await pool.preparedQuery(ClientKeyStatements.create, [appKey, keyID, name, secretHash]).first.map(Self.record)
    }

    /// The app's keys, revoked ones too, oldest first; nil when the app does not exist.
    public func list(appKey: String) async throws -> [ClientKeyRecord]? {
        let rows = try await pool.preparedQuery(ClientKeyStatements.list, [appKey])
        guard !rows.isEmpty else { return nil }
        return try rows.filter { $0["key_id"] != nil }.map(Self.record)
    }

    /// Nil when the app has no such key.
    public func revoke(appKey: String, keyID: String) async throws -> ClientKeyRecord? {
        try await pool.preparedQuery(ClientKeyStatements.revoke, [appKey, keyID]).first.map(Self.record)
    }

    /// The key with this id, unless revoked; nil otherwise.
    public func credential(keyID: String) async throws -> ClientKeyCredential? {
        guard let row = try await pool.preparedQuery(ClientKeyStatements.authenticate, [keyID]).first else { return nil }
        return ClientKeyCredential(rowID: Int64(try row.int("id")), appID: Int64(try row.int("app_id")), secretHash: try row.string("secret_hash"))
    }

    /// Stores the secret's hash of the device just registered through `clientKey`.
    public func storeDeviceSecret(appID: Int64, rid: String, clientKey: Int64, secretHash: String) async throws {
        let rows = try await pool.preparedQuery(ClientKeyStatements.storeDeviceSecret, [appID, rid, clientKey, secretHash])
        guard !rows.isEmpty else { throw PostgresError.protocolViolation("the device just registered was not found") }
    }

    /// The device with this registration id and a secret; nil otherwise.
    public func deviceCredential(rid: String) async throws -> DeviceSecretCredential? {
        guard let uuid = RegistrationID.uuid(rid),
              let row = try await pool.preparedQuery(ClientKeyStatements.deviceSecret, [uuid]).first else { return nil }
        return DeviceSecretCredential(deviceID: Int64(try row.int("id")), appID: Int64(try row.int("app_id")),
                                      platform: try DevicePlatform(parsing: try row.string("platform")), secretHash: try row.string("secret_hash"),
                                      maySetLabels: try row.bool("client_may_set_alias"))
    }

    /// Changes the device's token or environment (`ClientKeyStatements.changeDevice`).
    ///
    /// - Throws: `DeviceFieldError` when another device of the app has the new token.
    public func change(_ device: DeviceSecretCredential, _ change: ClientDeviceChange) async throws {
        do {
            try await pool.preparedQuery(ClientKeyStatements.changeDevice, [
                device.appID, device.deviceID, change.token?.text, change.environment != nil, change.environment?.rawValue,
            ])
        } catch PostgresError.server(let state, _) where state == .uniqueViolation {
            throw DeviceFieldError("another device of this app has this token; register it with POST /client/v1/devices instead")
        }
    }

    /// The device unregisters itself (`ClientKeyStatements.unregister`).
    public func unregister(_ device: DeviceSecretCredential) async throws {
        try await pool.preparedQuery(ClientKeyStatements.unregister, [device.appID, device.deviceID])
    }
}
