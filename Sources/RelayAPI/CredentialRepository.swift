import Foundation
import PostgresStore
import PushPipeline
import RelayCore
import RelayCrypto

/// The `apns_credentials` table: one credential per app, its secret sealed with the
/// relay's key and bound to the app (the app key is the associated data), so a sealed
/// blob copied to another app's row does not open.
struct CredentialRepository: Sendable {
    let pool: PostgresPool
    let box: SecretBox

    static func associatedData(appKey: String) -> [UInt8] { Array("apns-credential:\(appKey)".utf8) }

    /// Stores (or replaces) the app's credential; false when the app does not exist.
    func store(_ credential: APNSCredential, appKey: String) async throws -> Bool {
        let sealed = box.seal(credential.secretMaterial, associatedData: Self.associatedData(appKey: appKey))
        let rows = try await pool.query("""
            INSERT INTO apns_credentials (app_id, auth, topic, key_id, team_id, certificate_expires_at, certificate_subject, sealed_secret, updated_at)
            SELECT id, $2, $3, $4, $5, $6, $7, $8, now() FROM apps WHERE app_key = $1
            ON CONFLICT (app_id) DO UPDATE SET auth = EXCLUDED.auth, topic = EXCLUDED.topic, key_id = EXCLUDED.key_id,
                team_id = EXCLUDED.team_id, certificate_expires_at = EXCLUDED.certificate_expires_at,
                certificate_subject = EXCLUDED.certificate_subject, sealed_secret = EXCLUDED.sealed_secret, updated_at = now(),
                broken_at = NULL, broken_reason = NULL
            """,
            [appKey, credential.auth.rawValue, credential.topic, credential.keyID, credential.teamID,
             credential.certificateExpiresAt, credential.certificateSubject, sealed])
        // A new credential resumes a paused app: wake the workers.
        if rows.affectedRows == 1 { try await pool.query(PushChannel.notify) }
        return rows.affectedRows == 1
    }

    /// What the API may show of the app's credential: never the secret material.
    func metadata(appKey: String) async throws -> [String: Any]? {
        let rows = try await pool.query("""
            SELECT c.auth, c.topic, c.key_id, c.team_id, c.certificate_subject,
                   \(isoTimestampSQL("c.certificate_expires_at")) AS certificate_expires_at,
                   \(isoTimestampSQL("c.updated_at")) AS updated_at,
                   \(isoTimestampSQL("c.broken_at")) AS broken_at, c.broken_reason
            FROM apns_credentials c JOIN apps a ON a.id = c.app_id WHERE a.app_key = $1
            """, [appKey])
        guard let row = rows.first else { return nil }
        var json: [String: Any] = [:]
        for column in ["auth", "topic", "key_id", "team_id", "certificate_subject", "certificate_expires_at", "updated_at", "broken_at", "broken_reason"] {
            json[column] = row[column] ?? NSNull()
        }
        return json
    }

    /// The unsealed secret material, for the workers that talk to APNs.
    func secretMaterial(appKey: String) async throws -> [UInt8]? {
        let rows = try await pool.query("""
            SELECT c.sealed_secret FROM apns_credentials c JOIN apps a ON a.id = c.app_id WHERE a.app_key = $1
            """, [appKey])
        guard let row = rows.first else { return nil }
        return try box.open(try row.bytes("sealed_secret"), associatedData: Self.associatedData(appKey: appKey))
    }

    func delete(appKey: String) async throws -> Bool {
        try await pool.query(
            "DELETE FROM apns_credentials WHERE app_id = (SELECT id FROM apps WHERE app_key = $1)", [appKey]
        ).affectedRows == 1
    }
}
