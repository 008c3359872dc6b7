import PostgresStore

/// The delivery workers' statements on `webhook_events` (migration 0045), one text each.
/// Times come from the worker's clock as parameters, so retries are tested without waiting.
enum WebhookOutboxStatements {
    /// Leases up to $2 due events ($1 now) for $3 milliseconds to holder $4: their next
    /// attempt moves past the lease, so the events of a holder that dies come due again.
    /// Each row carries where it goes (its own URL, a push's callback, else its app's
    /// webhook's) and its app's sealed secret and key.
    static let lease = SQLStatement("pushrelay_webhook_lease", """
        WITH due AS (
            SELECT id FROM webhook_events
            WHERE state = 'pending' AND next_attempt_at <= $1::timestamptz
            ORDER BY next_attempt_at LIMIT $2::integer
            FOR UPDATE SKIP LOCKED
        )
        UPDATE webhook_events e SET next_attempt_at = $1::timestamptz + $3::integer * interval '1 millisecond', lease_owner = $4::text
        FROM due, webhooks w, apps a
        WHERE e.id = due.id AND w.app_id = e.app_id AND a.id = e.app_id
        RETURNING e.id, e.app_id, e.payload::text AS payload, e.attempts, e.horizon_from, a.app_key, coalesce(e.url, w.url) AS url, w.sealed_secret
        """)

    /// Records attempts by holder $1 at $2: a row per event from $3…$6 (id, state, the
    /// answer's status or NULL, the error or NULL) and $7 the next attempt (NULL unless
    /// pending). An event another holder leased since is left to it.
    static let settle = SQLStatement("pushrelay_webhook_settle", """
        UPDATE webhook_events e SET state = v.state, attempts = e.attempts + 1, last_attempt_at = $2::timestamptz,
               last_status = v.status, last_error = v.error, next_attempt_at = coalesce(v.next, e.next_attempt_at),
               finished_at = CASE WHEN v.state = 'pending' THEN NULL ELSE $2::timestamptz END, lease_owner = NULL
        FROM unnest($3::bigint[], $4::text[], $5::integer[], $6::text[], $7::timestamptz[]) AS v(id, state, status, error, next)
        WHERE e.id = v.id AND e.lease_owner = $1::text AND e.state = 'pending'
        """)

    /// Drops up to $2 events delivered before $1 (the listing keeps the recent ones).
    static let sweep = SQLStatement("pushrelay_webhook_sweep", """
        DELETE FROM webhook_events WHERE id IN (
            SELECT id FROM webhook_events WHERE state = 'delivered' AND finished_at < $1::timestamptz LIMIT $2::integer
        )
        """)

    static let all = [lease, settle, sweep]
}
