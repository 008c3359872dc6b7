import Foundation
import PostgresStore
import PushPipeline
import RelayCore
import RelayCrypto

/// The `apns_credentials` table: a credential per app and APNs environment, its secret
/// sealed with the relay's key and bound to the app (the app key is the associated data),
/// so a sealed blob copied to another app's row does not open.
public struct CredentialRepository: Sendable {
    public let pool: PostgresPool
    public let box: SecretBox

    public init(pool: PostgresPool, box: SecretBox) {
        self.pool = pool
        self.box = box
    }

    public static func associatedData(appKey: String) -> [UInt8] { Array("apns-credential:\(appKey)".utf8) }

    /// Stores (or replaces) the app's credential in each of `environments`; false when the app
    /// does not exist. A replaced credential is no longer broken.
    public func store(_ credential: APNSCredential, appKey: String, environments: [DeviceEnvironment]) async throws -> Bool {
        let sealed = box.seal(credential.secretMaterial, associatedData: Self.associatedData(appKey: appKey))
        let rows = try await pool.preparedQuery(CredentialStatements.store, [
            appKey, Self.array(environments), credential.auth.rawValue, credential.topic, credential.keyID, credential.teamID,
            credential.certificateExpiresAt, credential.certificateSubject, sealed,
        ])
        // A new credential resumes a paused environment: wake the workers.
        if rows.affectedRows > 0 { try await pool.query(PushChannel.notify) }
        return rows.affectedRows > 0
    }

    /// What the API may show of the app's credentials in `environments`: never the secret material.
    public func metadata(appKey: String, environments: [DeviceEnvironment] = DeviceEnvironment.allCases) async throws -> [CredentialMetadata] {
        try await pool.preparedQuery(CredentialStatements.metadata, [appKey, Self.array(environments)]).map(CredentialMetadata.init(row:))
    }

    /// The unsealed secret material of one environment's credential.
    public func secretMaterial(appKey: String, environment: DeviceEnvironment) async throws -> [UInt8]? {
        let rows = try await pool.preparedQuery(CredentialStatements.sealedSecret, [appKey, environment.rawValue])
        guard let row = rows.first else { return nil }
        return try box.open(try row.bytes("sealed_secret"), associatedData: Self.associatedData(appKey: appKey))
    }

    /// Removes the app's credentials in `environments`; false when there was none to remove.
    public func delete(appKey: String, environments: [DeviceEnvironment]) async throws -> Bool {
        try await pool.preparedQuery(CredentialStatements.delete, [appKey, Self.array(environments)]).affectedRows > 0
    }

    private static func array(_ environments: [DeviceEnvironment]) -> String {
        "{" + environments.map(\.rawValue).joined(separator: ",") + "}"
    }
}
