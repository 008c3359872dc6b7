import PostgresStore
import PushPipeline
import RelayCore
import RelayCrypto

/// The `fcm_credentials` table: an app's Firebase service account, the key file sealed with
/// the relay's key and bound to the app (`fcm-credential:<app key>` is the associated data),
/// so a sealed blob copied to another app's row does not open.
public struct FCMCredentialRepository: Sendable {
    public let pool: PostgresPool
    public let box: SecretBox

    public init(pool: PostgresPool, box: SecretBox) {
        self.pool = pool
        self.box = box
    }

    public static func associatedData(appKey: String) -> [UInt8] { Array("fcm-credential:\(appKey)".utf8) }

    /// Checks a service-account key file as Firebase's console downloads it.
    ///
    /// - Throws: 1003 naming what is wrong (never key material).
    public static func parse(_ body: [UInt8]) throws(JPushError) -> FCMServiceAccount {
        do throws(CredentialError) {
            return try FCMServiceAccount.parse(body)
        } catch {
            throw JPushError.illegalValue(error.message)
        }
    }

    /// Stores (or replaces) the app's service account; false when the app does not exist. A
    /// replaced credential is no longer broken.
    public func store(_ account: FCMServiceAccount, appKey: String) async throws -> Bool {
        let sealed = box.seal(account.json, associatedData: Self.associatedData(appKey: appKey))
        let rows = try await pool.preparedQuery(FCMCredentialStatements.store, [
            appKey, account.projectID, account.clientEmail, account.privateKeyID, account.tokenURI, sealed,
        ])
        // A new credential resumes a paused app: wake the workers.
        if rows.affectedRows > 0 { try await pool.query(PushChannel.notify) }
        return rows.affectedRows > 0
    }

    /// What the API may show of the app's credential; nil when it has none.
    public func metadata(appKey: String) async throws -> FCMCredentialMetadata? {
        try await pool.preparedQuery(FCMCredentialStatements.metadata, [appKey]).first.map(FCMCredentialMetadata.init(row:))
    }

    /// Removes the app's credential; false when there was none.
    public func delete(appKey: String) async throws -> Bool {
        try await pool.preparedQuery(FCMCredentialStatements.delete, [appKey]).affectedRows > 0
    }
}
