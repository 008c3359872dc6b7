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
        let rows = try await pool.query(Self.storeSQL, [
            appKey, Self.array(environments), credential.auth.rawValue, credential.topic, credential.keyID, credential.teamID,
            credential.certificateExpiresAt, credential.certificateSubject, sealed,
        ])
        // A new credential resumes a paused environment: wake the workers.
        if rows.affectedRows > 0 { try await pool.query(PushChannel.notify) }
        return rows.affectedRows > 0
    }

    /// $1 app key, $2 environments (text[]), then the credential's columns.
    public static let storeSQL = """
        INSERT INTO apns_credentials (app_id, environment, auth, topic, key_id, team_id, certificate_expires_at,
                                      certificate_subject, sealed_secret, updated_at)
        SELECT a.id, e.environment, $3, $4, $5, $6, $7, $8, $9, now()
        FROM apps a CROSS JOIN unnest($2::text[]) AS e(environment) WHERE a.app_key = $1
        ON CONFLICT (app_id, environment) DO UPDATE SET auth = EXCLUDED.auth, topic = EXCLUDED.topic, key_id = EXCLUDED.key_id,
            team_id = EXCLUDED.team_id, certificate_expires_at = EXCLUDED.certificate_expires_at,
            certificate_subject = EXCLUDED.certificate_subject, sealed_secret = EXCLUDED.sealed_secret, updated_at = now(),
            broken_at = NULL, broken_reason = NULL
        """

    /// What the API may show of the app's credentials in `environments`: never the secret material.
    public func metadata(appKey: String, environments: [DeviceEnvironment] = DeviceEnvironment.allCases) async throws -> [CredentialMetadata] {
        try await pool.query(Self.metadataSQL, [appKey, Self.array(environments)]).map(CredentialMetadata.init(row:))
    }

    /// $1 app key, $2 environments (text[]).
    public static let metadataSQL = """
        SELECT \(CredentialMetadata.columnsSQL)
        FROM apns_credentials c JOIN apps a ON a.id = c.app_id
        WHERE a.app_key = $1 AND c.environment = ANY ($2::text[])
        ORDER BY c.environment
        """

    /// The unsealed secret material of one environment's credential.
    public func secretMaterial(appKey: String, environment: DeviceEnvironment) async throws -> [UInt8]? {
        let rows = try await pool.query("""
            SELECT c.sealed_secret FROM apns_credentials c JOIN apps a ON a.id = c.app_id
            WHERE a.app_key = $1 AND c.environment = $2
            """, [appKey, environment.rawValue])
        guard let row = rows.first else { return nil }
        return try box.open(try row.bytes("sealed_secret"), associatedData: Self.associatedData(appKey: appKey))
    }

    /// Removes the app's credentials in `environments`; false when there was none to remove.
    public func delete(appKey: String, environments: [DeviceEnvironment]) async throws -> Bool {
        try await pool.query(Self.deleteSQL, [appKey, Self.array(environments)]).affectedRows > 0
    }

    /// $1 app key, $2 environments (text[]).
    public static let deleteSQL = """
        DELETE FROM apns_credentials WHERE app_id = (SELECT id FROM apps WHERE app_key = $1) AND environment = ANY ($2::text[])
        """

    private static func array(_ environments: [DeviceEnvironment]) -> String {
        "{" + environments.map(\.rawValue).joined(separator: ",") + "}"
    }
}
