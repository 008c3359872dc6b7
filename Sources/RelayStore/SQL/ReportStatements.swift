import PostgresStore

/// Every statement the JPush reports read, one text each: a handful of primary-key probes
/// per call however many deliveries a message has, each scoped to the calling app ($1
/// wherever a message is looked up by id).
enum ReportStatements {
    /// The app's messages among $2 (bigint[]) with their receipt counters: other apps' and
    /// unknown ids match nothing.
    /// The body (at most 100 rows) gives `/v3/messages/detail` the parts that were ignored.
    static let counters = SQLStatement("pushrelay_report_counters", """
        SELECT m.id, m.state, m.target_count, m.sent_count, m.failed_count, m.invalidated_count, m.expired_count, m.retry_count,
               m.android_target_count, m.android_sent_count, \(MessageCounters.receiptColumns("r")),
               \(isoTimestampSQL("m.created_at")) AS created_at,
               \(isoTimestampSQL("m.first_sent_at")) AS first_sent_at,
               \(isoTimestampSQL("m.last_sent_at")) AS last_sent_at,
               \(isoTimestampSQL("m.finished_at")) AS finished_at,
               round(EXTRACT(EPOCH FROM m.finished_at - m.created_at), 3) AS duration_seconds, m.body
        FROM messages m \(MessageCounters.receiptJoin("m", as: "r"))
        WHERE m.app_id = $1 AND m.id = ANY ($2::bigint[])
        """)

    /// Non-sent outcomes by reason of the messages $1 (bigint[]), already known to be the app's.
    static let failures = SQLStatement("pushrelay_report_failures", """
        SELECT message_id, reason, count FROM message_failures WHERE message_id = ANY ($1::bigint[])
        """)

    /// The state of message $1, if it is app $2's.
    static let messageState = SQLStatement("pushrelay_report_message_state", "SELECT state FROM messages WHERE id = $1 AND app_id = $2")

    /// Per registration id ($2, text[], well-formed ones only): whether it is a device of the
    /// app, and its outcome for message $3: its `deliveries` row, else `sent` if a span holds
    /// it, found through the index `delivery_spans_message_ids` as it is defined, in the
    /// message's partition (the plain equality is what prunes the others; the pipeline's
    /// `DeliverySpans.sentSQL`).
    static let outcomes = SQLStatement("pushrelay_report_outcomes", """
        SELECT r.rid, d.id IS NOT NULL AS is_device,
               coalesce(o.outcome, CASE WHEN EXISTS (SELECT 1 FROM delivery_spans s WHERE s.message_id = $3
                                                         AND int8range(s.message_id, s.message_id, '[]') @> $3::bigint
                                                         AND int8range(s.lo, s.hi, '[]') @> d.id::bigint AND d.id = ANY (s.device_ids))
                                     THEN 'sent' END) AS outcome
        FROM unnest($2::text[]) AS r(rid)
        LEFT JOIN devices d ON d.registration_id = r.rid::uuid AND d.app_id = $1
        LEFT JOIN deliveries o ON o.message_id = $3 AND o.device_id = d.id
        """)

    static let all = [counters, failures, messageState, outcomes]
}
