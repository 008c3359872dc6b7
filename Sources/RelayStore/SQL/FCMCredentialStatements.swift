import PostgresStore

/// Every statement on the `fcm_credentials` table, one text each: $1 the app's key.
enum FCMCredentialStatements {
    /// Stores (or replaces) the app's credential: $2 project_id, $3 client_email, $4
    /// private_key_id, $5 token_uri, $6 the sealed key file; a replaced credential is no
    /// longer broken.
    static let store = SQLStatement("pushrelay_fcm_credential_store", """
        INSERT INTO fcm_credentials (app_id, project_id, client_email, private_key_id, token_uri, sealed_secret, updated_at)
        SELECT a.id, $2, $3, $4, $5, $6, now() FROM apps a WHERE a.app_key = $1
        ON CONFLICT (app_id) DO UPDATE SET project_id = EXCLUDED.project_id, client_email = EXCLUDED.client_email,
            private_key_id = EXCLUDED.private_key_id, token_uri = EXCLUDED.token_uri, sealed_secret = EXCLUDED.sealed_secret,
            updated_at = now(), broken_at = NULL, broken_reason = NULL
        """)

    /// What `FCMCredentialMetadata(row:)` reads: never the key.
    static let metadata = SQLStatement("pushrelay_fcm_credential_metadata", """
        SELECT c.project_id, c.client_email, c.private_key_id, c.token_uri,
               \(isoTimestampSQL("c.updated_at")) AS updated_at,
               \(isoTimestampSQL("c.broken_at")) AS broken_at, c.broken_reason
        FROM fcm_credentials c JOIN apps a ON a.id = c.app_id
        WHERE a.app_key = $1
        """)

    static let delete = SQLStatement("pushrelay_fcm_credential_delete", """
        DELETE FROM fcm_credentials WHERE app_id = (SELECT id FROM apps WHERE app_key = $1)
        """)

    static let all = [store, metadata, delete]
}
