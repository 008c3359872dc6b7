import PostgresStore

/// Every statement on `live_activity_channels` (migration 0049), one text each: $1 the app's
/// id, so no statement reaches another app's channels; $2 the channel id where one is named.
enum LiveActivityChannelStatements {
    private static let columns = """
        channel_id, environment, message_storage_policy, \(isoTimestampSQL("created_at")) AS created_at
        """

    /// Records a channel APNs created: $3 environment, $4 message storage policy.
    static let insert = SQLStatement("pushrelay_la_channel_insert", """
        INSERT INTO live_activity_channels (app_id, channel_id, environment, message_storage_policy)
        VALUES ($1, $2, $3, $4)
        RETURNING \(columns)
        """)

    static let find = SQLStatement("pushrelay_la_channel_find", """
        SELECT \(columns) FROM live_activity_channels WHERE app_id = $1 AND channel_id = $2
        """)

    /// The app's channels, oldest first (at most APNs' 10,000 per environment).
    static let list = SQLStatement("pushrelay_la_channel_list", """
        SELECT \(columns) FROM live_activity_channels WHERE app_id = $1 ORDER BY created_at, channel_id
        """)

    static let delete = SQLStatement("pushrelay_la_channel_delete", """
        DELETE FROM live_activity_channels WHERE app_id = $1 AND channel_id = $2
        """)

    static let all = [insert, find, list, delete]
}
