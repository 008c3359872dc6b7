import PostgresStore

/// The scheduler's statements: the wake-up, the claim of one due schedule, the record of
/// each occurrence in `schedule_fires` and the watermark moved, all but the wake-up in the
/// claim's transaction. The savepoints around each occurrence stay inline: PostgreSQL
/// neither prepares nor explains them.
enum ScheduleFiringStatements {
    /// When the earliest schedule is due (seconds since the epoch), NULL when none is.
    static let earliest = SQLStatement("pushrelay_schedule_fire_earliest",
                                       "SELECT EXTRACT(EPOCH FROM min(next_fire_at))::float8 AS earliest FROM schedules WHERE next_fire_at IS NOT NULL")

    /// The most overdue schedule due at $1 that no other node holds, locked.
    static let claim = SQLStatement("pushrelay_schedule_fire_claim", """
        SELECT id::text AS id, app_id, trigger, push, watermark FROM schedules
        WHERE next_fire_at <= $1 ORDER BY next_fire_at LIMIT 1 FOR UPDATE SKIP LOCKED
        """)

    /// Schedule $1 fires no more (its stored trigger is unreadable).
    static let stop = SQLStatement("pushrelay_schedule_fire_stop", "UPDATE schedules SET next_fire_at = NULL WHERE id = $1")

    /// Occurrence $2 of schedule $1 was later than the grace period.
    static let missed = SQLStatement("pushrelay_schedule_fire_missed", """
        INSERT INTO schedule_fires (schedule_id, occurrence, outcome) VALUES ($1, $2, 'missed') ON CONFLICT DO NOTHING
        """)

    /// Occurrence $2 of schedule $1 became message $3: no row when it was recorded before.
    static let sent = SQLStatement("pushrelay_schedule_fire_sent", """
        INSERT INTO schedule_fires (schedule_id, occurrence, outcome, message_id) VALUES ($1, $2, 'sent', $3)
        ON CONFLICT DO NOTHING
        """)

    /// Occurrence $2 of schedule $1 was refused, $3 why.
    static let failed = SQLStatement("pushrelay_schedule_fire_failed", """
        INSERT INTO schedule_fires (schedule_id, occurrence, outcome, error) VALUES ($1, $2, 'failed', $3)
        ON CONFLICT DO NOTHING
        """)

    /// Schedule $1 handled: $2 its new watermark (NULL keeps it), $3 its next fire.
    static let advance = SQLStatement("pushrelay_schedule_fire_advance",
                                      "UPDATE schedules SET watermark = COALESCE($2, watermark), next_fire_at = $3 WHERE id = $1")

    static let all = [earliest, claim, stop, missed, sent, failed, advance]
}
