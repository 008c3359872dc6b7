import PostgresStore
import RelayCore

/// Every statement on `client_keys` and `device_secrets` (migration 0043), one text each.
enum ClientKeyStatements {
    /// What a `ClientKeyRecord` reads, of `client_keys k`.
    private static let columns = """
        k.key_id, k.name, \(isoTimestampSQL("k.created_at")) AS created_at,
        \(isoTimestampSQL("k.revoked_at")) AS revoked_at, \(isoTimestampSQL("k.last_used_at")) AS last_used_at
        """

    // MARK: The admin API ($1 app key)

    /// $2 key id, $3 name, $4 the secret's hash: no row when the app does not exist.
    static let create = SQLStatement("pushrelay_client_key_create", """
        INSERT INTO client_keys AS k (app_id, key_id, name, secret_hash)
        SELECT a.id, $2, $3, $4 FROM apps a WHERE a.app_key = $1
        RETURNING \(columns)
        """)

    /// The app's keys, oldest first: no row when the app does not exist, one row of NULL key
    /// columns when it has no key.
    static let list = SQLStatement("pushrelay_client_key_list", """
        SELECT \(columns) FROM apps a LEFT JOIN client_keys k ON k.app_id = a.id
        WHERE a.app_key = $1 ORDER BY k.id
        """)

    /// Revokes key $2 (a second revocation keeps the first time): no row when the app has no such key.
    static let revoke = SQLStatement("pushrelay_client_key_revoke", """
        UPDATE client_keys k SET revoked_at = coalesce(k.revoked_at, now())
        FROM apps a WHERE a.app_key = $1 AND k.app_id = a.id AND k.key_id = $2
        RETURNING \(columns)
        """)

    // MARK: The client API

    /// A key still in force, by its key id ($1): read on every request, so a revocation holds
    /// at once on every node.
    static let authenticate = SQLStatement("pushrelay_client_key_authenticate",
        "SELECT id, app_id, secret_hash FROM client_keys WHERE key_id = $1 AND revoked_at IS NULL")

    /// Gives the device just registered ($1 app, $2 registration id) its secret's hash ($4),
    /// replacing any earlier one, and notes the use of client key $3 (at most once a minute).
    static let storeDeviceSecret = SQLStatement("pushrelay_device_secret_store", """
        WITH used AS (
            UPDATE client_keys SET last_used_at = now()
            WHERE id = $3 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
        )
        INSERT INTO device_secrets AS s (app_id, device_id, client_key_id, secret_hash)
        SELECT d.app_id, d.id, $3, $4 FROM devices d WHERE d.app_id = $1 AND d.registration_id = $2::uuid
        ON CONFLICT (app_id, device_id) DO UPDATE SET
            client_key_id = EXCLUDED.client_key_id, secret_hash = EXCLUDED.secret_hash, created_at = now()
        RETURNING s.device_id
        """)

    /// A device with a secret, by registration id ($1; unique over every app), and whether
    /// its app lets it set its own alias and tags.
    static let deviceSecret = SQLStatement("pushrelay_device_secret_find", """
        SELECT d.id, d.app_id, d.platform, s.secret_hash, a.client_may_set_alias
        FROM devices d JOIN device_secrets s ON s.app_id = d.app_id AND s.device_id = d.id JOIN apps a ON a.id = d.app_id
        WHERE d.registration_id = $1::uuid
        """)

    /// The device ($1 app, $2 device id) changes its token ($3, NULL keeps; a new token
    /// revives a dead device, as a registration does) or its environment ($4 given, $5).
    static let changeDevice = SQLStatement("pushrelay_device_secret_change", """
        UPDATE devices SET
            token = coalesce($3, token),
            environment = CASE WHEN $4::boolean THEN $5 ELSE environment END,
            registered_at = now(),
            last_seen_at = now(),
            reactivated_at = CASE WHEN active OR $3 IS NULL THEN reactivated_at ELSE now() END,
            active = active OR $3 IS NOT NULL
        WHERE app_id = $1 AND id = $2
        """)

    /// The device ($1 app, $2 device id) unregisters itself: no more pushes, its alias, tags
    /// and secret dropped; the row stays, as a dead token's does, for reports. Registering
    /// the token again revives it.
    static let unregister = SQLStatement("pushrelay_device_secret_unregister", """
        WITH secret AS (
            DELETE FROM device_secrets WHERE app_id = $1 AND device_id = $2
        ), tags AS (
            DELETE FROM device_tags WHERE device_id = $2
        )
        UPDATE devices SET active = false, alias = NULL, invalidated_at = now(), invalidation_reason = 'Unregistered'
        WHERE app_id = $1 AND id = $2
        """)

    static let all = [create, list, revoke, authenticate, storeDeviceSecret, deviceSecret, changeDevice, unregister]
}
