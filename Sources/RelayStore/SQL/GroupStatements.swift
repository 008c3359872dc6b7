import PostgresStore

/// Every statement on the `app_groups` and `app_group_members` tables, one text each; a
/// group is found by its key ($1) except while it is being made.
enum GroupStatements {
    /// A `GroupRecord`'s columns (`g` app_groups); its app keys sorted, comma-separated.
    private static let recordColumns = """
        g.group_key, g.name, \(isoTimestampSQL("g.created_at")) AS created_at,
        \(isoTimestampSQL("g.secret_rotated_at")) AS secret_rotated_at,
        (SELECT string_agg(a.app_key, ',' ORDER BY a.app_key) FROM app_group_members m JOIN apps a ON a.id = m.app_id
         WHERE m.group_id = g.id) AS app_keys
        """

    // Making a group, in one transaction: $1 the app keys (text[]) found, then the group
    // ($1 key, $2 name, $3 the secret's hash), its members ($1 the group's id, $2 the app
    // keys), and its record ($1 the group's id).

    static let appsByKey = SQLStatement("pushrelay_group_apps_by_key", "SELECT id, app_key FROM apps WHERE app_key = ANY ($1::text[])")

    static let create = SQLStatement("pushrelay_group_create", "INSERT INTO app_groups (group_key, name, secret_hash) VALUES ($1, $2, $3) RETURNING id")

    static let addMembers = SQLStatement("pushrelay_group_add_members", """
        INSERT INTO app_group_members (group_id, app_id) SELECT $1, id FROM apps WHERE app_key = ANY ($2::text[])
        """)

    static let record = SQLStatement("pushrelay_group_record", "SELECT \(recordColumns) FROM app_groups g WHERE g.id = $1")

    /// Every group, oldest first.
    static let list = SQLStatement("pushrelay_group_list", "SELECT \(recordColumns) FROM app_groups g ORDER BY g.id")

    static let delete = SQLStatement("pushrelay_group_delete", "DELETE FROM app_groups WHERE group_key = $1")

    /// $2 the new secret's hash.
    static let replaceSecretHash = SQLStatement("pushrelay_group_replace_secret", """
        UPDATE app_groups g SET secret_hash = $2, secret_rotated_at = now() WHERE g.group_key = $1 RETURNING \(recordColumns)
        """)

    /// The group's id and secret hash, once per app of the group (apps by id; one row with
    /// null app columns for a group whose apps were all deleted).
    static let find = SQLStatement("pushrelay_group_find", """
        SELECT g.id, g.secret_hash, a.id AS app_id, a.app_key
        FROM app_groups g LEFT JOIN app_group_members m ON m.group_id = g.id LEFT JOIN apps a ON a.id = m.app_id
        WHERE g.group_key = $1 ORDER BY a.id
        """)

    static let all = [appsByKey, create, addMembers, record, list, delete, replaceSecretHash, find]
}
