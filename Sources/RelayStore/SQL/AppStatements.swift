import PostgresStore

/// Every statement on the `apps` table, one text each, by app key ($1); the app-auth
/// lookup (RelayAPI's `AppAuthenticator.credentialsSQL`) stays apart, unprepared, so API
/// nodes behind PgBouncer in transaction mode still authenticate.
enum AppStatements {
    /// What an `AppRecord` reads.
    private static let columns = """
        app_key, name, \(isoTimestampSQL("created_at")) AS created_at, \(isoTimestampSQL("secret_rotated_at")) AS secret_rotated_at,
        client_may_set_alias
        """

    /// $2 name, $3 the secret's hash.
    static let create = SQLStatement("pushrelay_app_create",
        "INSERT INTO apps (app_key, name, secret_hash) VALUES ($1, $2, $3) RETURNING \(columns)")

    static let list = SQLStatement("pushrelay_app_list", "SELECT \(columns) FROM apps ORDER BY id")

    static let find = SQLStatement("pushrelay_app_find", "SELECT \(columns) FROM apps WHERE app_key = $1")

    /// The app's row id, which device statements are keyed on.
    static let id = SQLStatement("pushrelay_app_id", "SELECT id FROM apps WHERE app_key = $1")

    /// $2 the new secret's hash.
    static let replaceSecretHash = SQLStatement("pushrelay_app_replace_secret",
        "UPDATE apps SET secret_hash = $2, secret_rotated_at = now() WHERE app_key = $1 RETURNING \(columns)")

    /// $2: whether the app's devices may set their own alias and tags.
    static let setClientMaySetAlias = SQLStatement("pushrelay_app_set_client_may_set_alias",
        "UPDATE apps SET client_may_set_alias = $2 WHERE app_key = $1 RETURNING \(columns)")

    // Deleting an app, in one transaction: its messages' deliveries, delivery spans and
    // receipts first (they carry no foreign key, migrations 0021, 0023 and 0044), then the
    // app, and the rest with it through foreign keys.

    static let deleteDeliveries = SQLStatement("pushrelay_app_delete_deliveries", """
        DELETE FROM deliveries WHERE message_id IN
            (SELECT m.id FROM messages m JOIN apps a ON a.id = m.app_id WHERE a.app_key = $1)
        """)

    static let deleteReceipts = SQLStatement("pushrelay_app_delete_receipts", """
        DELETE FROM receipts WHERE message_id IN
            (SELECT m.id FROM messages m JOIN apps a ON a.id = m.app_id WHERE a.app_key = $1)
        """)

    /// The app as the index `delivery_spans_app_ids` is defined (a one-point range: the same
    /// rows as `app_id =`, app_id being NOT NULL), so it is not a scan of every span.
    static let deleteSpans = SQLStatement("pushrelay_app_delete_spans",
        "DELETE FROM delivery_spans WHERE int8range(app_id, app_id, '[]') @> (SELECT id FROM apps WHERE app_key = $1)")

    static let delete = SQLStatement("pushrelay_app_delete", "DELETE FROM apps WHERE app_key = $1")

    static let all = [create, list, find, id, replaceSecretHash, setClientMaySetAlias, deleteDeliveries, deleteSpans, deleteReceipts, delete]
}
