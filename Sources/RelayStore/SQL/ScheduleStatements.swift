import PostgresStore

/// Every statement on the `schedules` table as the API sees it, one text each, scoped to
/// one app ($1) wherever a schedule is looked up; each change is followed, in its
/// transaction, by `ScheduleChannel.notify`.
enum ScheduleStatements {
    /// What a `StoredSchedule` reads.
    private static let columns = "id::text AS id, cid, name, enabled, trigger, push, watermark"

    /// $2 cid, $3 name, $4 enabled, $5 trigger, $6 push (JSON texts), $7 watermark, $8 next
    /// fire: no row when the cid was used before.
    static let create = SQLStatement("pushrelay_schedule_create", """
        INSERT INTO schedules (app_id, cid, name, enabled, trigger, push, watermark, next_fire_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
        ON CONFLICT (app_id, cid) DO NOTHING
        RETURNING id::text AS id, name
        """)

    /// The schedule made with cid $2.
    static let findByCID = SQLStatement("pushrelay_schedule_find_by_cid", "SELECT id::text AS id, name FROM schedules WHERE app_id = $1 AND cid = $2")

    static let count = SQLStatement("pushrelay_schedule_count", "SELECT count(*) AS n FROM schedules WHERE app_id = $1")

    /// $2 the page's size, $3 its offset.
    static let page = SQLStatement("pushrelay_schedule_page", """
        SELECT \(columns) FROM schedules WHERE app_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3
        """)

    /// $2 the schedule's id (uuid), as in every statement below.
    static let find = SQLStatement("pushrelay_schedule_find", "SELECT \(columns) FROM schedules WHERE app_id = $1 AND id = $2::uuid")

    static let lock = SQLStatement("pushrelay_schedule_lock", "SELECT \(columns) FROM schedules WHERE app_id = $1 AND id = $2::uuid FOR UPDATE")

    /// By its id alone ($1), once `lock` found it the app's: $2 name, $3 enabled, $4 trigger,
    /// $5 push, $6 watermark, $7 next fire.
    static let update = SQLStatement("pushrelay_schedule_update", """
        UPDATE schedules SET name = $2, enabled = $3, trigger = $4, push = $5, watermark = $6, next_fire_at = $7,
                             updated_at = now()
        WHERE id = $1::uuid
        """)

    static let delete = SQLStatement("pushrelay_schedule_delete", "DELETE FROM schedules WHERE app_id = $1 AND id = $2::uuid")

    static let exists = SQLStatement("pushrelay_schedule_exists", "SELECT 1 FROM schedules WHERE app_id = $1 AND id = $2::uuid")

    /// The pushes schedule $1 sent, oldest first.
    static let sentMessages = SQLStatement("pushrelay_schedule_sent_messages", """
        SELECT message_id::text AS m FROM schedule_fires WHERE schedule_id = $1::uuid AND outcome = 'sent' ORDER BY occurrence
        """)

    static let all = [create, findByCID, count, page, find, lock, update, delete, exists, sentMessages]
}
