import PostgresStore

/// Every statement on the `apns_credentials` table, one text each: $1 the app's key, $2 the
/// environments (text[]) it applies to.
enum CredentialStatements {
    /// Stores (or replaces) the credential in each environment, then the credential's
    /// columns from $3; a replaced credential is no longer broken.
    static let store = SQLStatement("pushrelay_credential_store", """
        INSERT INTO apns_credentials (app_id, environment, auth, topic, key_id, team_id, certificate_expires_at,
                                      certificate_subject, sealed_secret, updated_at)
        SELECT a.id, e.environment, $3, $4, $5, $6, $7, $8, $9, now()
        FROM apps a CROSS JOIN unnest($2::text[]) AS e(environment) WHERE a.app_key = $1
        ON CONFLICT (app_id, environment) DO UPDATE SET auth = EXCLUDED.auth, topic = EXCLUDED.topic, key_id = EXCLUDED.key_id,
            team_id = EXCLUDED.team_id, certificate_expires_at = EXCLUDED.certificate_expires_at,
            certificate_subject = EXCLUDED.certificate_subject, sealed_secret = EXCLUDED.sealed_secret, updated_at = now(),
            broken_at = NULL, broken_reason = NULL
        """)

    /// What `CredentialMetadata(row:)` reads: never the secret material.
    static let metadata = SQLStatement("pushrelay_credential_metadata", """
        SELECT c.environment, c.auth, c.topic, c.key_id, c.team_id, c.certificate_subject,
               \(isoTimestampSQL("c.certificate_expires_at")) AS certificate_expires_at,
               \(isoTimestampSQL("c.updated_at")) AS updated_at,
               \(isoTimestampSQL("c.broken_at")) AS broken_at, c.broken_reason
        FROM apns_credentials c JOIN apps a ON a.id = c.app_id
        WHERE a.app_key = $1 AND c.environment = ANY ($2::text[])
        ORDER BY c.environment
        """)

    /// The sealed secret of one environment's credential ($2 the environment, text).
    static let sealedSecret = SQLStatement("pushrelay_credential_sealed_secret", """
        SELECT c.sealed_secret FROM apns_credentials c JOIN apps a ON a.id = c.app_id
        WHERE a.app_key = $1 AND c.environment = $2
        """)

    static let delete = SQLStatement("pushrelay_credential_delete", """
        DELETE FROM apns_credentials WHERE app_id = (SELECT id FROM apps WHERE app_key = $1) AND environment = ANY ($2::text[])
        """)

    static let all = [store, metadata, sealedSecret, delete]
}
