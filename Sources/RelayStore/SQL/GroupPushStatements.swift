import PostgresStore

/// Every statement on the `group_pushes` and `group_push_messages` tables, one text each:
/// a group push recorded in the transaction that accepts its apps' messages, and read back
/// scoped to its group ($1 wherever one is read).
enum GroupPushStatements {
    /// $1 the group_msgid, $2 the group's id.
    static let insertPush = SQLStatement("pushrelay_group_push_insert", "INSERT INTO group_pushes (group_msgid, group_id) VALUES ($1, $2)")

    /// One app's part of group push $1: $2 the app's id, then $3 the message it became or
    /// $4, $5 the error its push got.
    static let insertMessage = SQLStatement("pushrelay_group_push_insert_message", """
        INSERT INTO group_push_messages (group_msgid, app_id, message_id, error_code, error_message) VALUES ($1, $2, $3, $4, $5)
        """)

    /// A page of the group's group_msgids, newest first: `$2` the cursor (only older ones),
    /// `$3` how many.
    static let page = SQLStatement("pushrelay_group_push_page", """
        SELECT group_msgid FROM group_pushes WHERE group_id = $1 AND group_msgid < $2 ORDER BY group_msgid DESC LIMIT $3
        """)

    /// The group's pushes among `$2` with their parts, newest first and by app key.
    static let parts = SQLStatement("pushrelay_group_push_parts", """
        SELECT p.group_msgid, \(isoTimestampSQL("p.created_at")) AS pushed_at, e.error_code, e.error_message,
               \(MessageSummary.columns)
        FROM group_pushes p
        JOIN group_push_messages e ON e.group_msgid = p.group_msgid
        JOIN apps a ON a.id = e.app_id
        LEFT JOIN messages m ON m.id = e.message_id
        \(MessageSummary.receiptJoin)
        WHERE p.group_id = $1 AND p.group_msgid = ANY ($2::bigint[])
        ORDER BY p.group_msgid DESC, a.app_key
        """)

    static let all = [insertPush, insertMessage, page, parts]
}
