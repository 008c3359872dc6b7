import PostgresStore

/// The admin API's statements on `webhooks` and `webhook_events` (migration 0045), one text
/// each: $1 the app's key. The delivery workers' own are `WebhookOutboxStatements`.
enum WebhookStatements {
    /// What `WebhookMetadata(row:)` reads, of `webhooks w` (never the secret), with the
    /// outbox's pending and dead counts.
    private static let metadataColumns = """
        w.url, array_to_string(w.events, ' ') AS events, \(isoTimestampSQL("w.created_at")) AS created_at, \(isoTimestampSQL("w.updated_at")) AS updated_at,
        (SELECT count(*) FROM webhook_events e WHERE e.app_id = w.app_id AND e.state = 'pending') AS pending,
        (SELECT count(*) FROM webhook_events e WHERE e.app_id = w.app_id AND e.state = 'dead') AS dead
        """

    /// Sets (or replaces) the app's webhook: $2 url, $3 events (text[]), $4 the sealed
    /// secret. Events waiting in the outbox stay and go to the new URL. No row when the app
    /// does not exist.
    static let put = SQLStatement("pushrelay_webhook_put", """
        INSERT INTO webhooks AS w (app_id, url, events, sealed_secret)
        SELECT a.id, $2, $3::text[], $4 FROM apps a WHERE a.app_key = $1
        ON CONFLICT (app_id) DO UPDATE SET url = EXCLUDED.url, events = EXCLUDED.events,
            sealed_secret = EXCLUDED.sealed_secret, updated_at = now()
        RETURNING \(metadataColumns)
        """)

    static let metadata = SQLStatement("pushrelay_webhook_metadata", """
        SELECT \(metadataColumns) FROM webhooks w JOIN apps a ON a.id = w.app_id WHERE a.app_key = $1
        """)

    /// Removes the webhook and, with it, its events.
    static let delete = SQLStatement("pushrelay_webhook_delete", """
        DELETE FROM webhooks WHERE app_id = (SELECT id FROM apps WHERE app_key = $1)
        """)

    /// Of the app keys $1 (text[]), those whose app has a webhook: the pushes whose
    /// `callback` can be signed (migration 0047).
    static let withWebhook = SQLStatement("pushrelay_webhook_apps_with", """
        SELECT a.app_key FROM apps a JOIN webhooks w ON w.app_id = a.id WHERE a.app_key = ANY ($1::text[])
        """)

    /// A page of the app's events, newest first: $2 rows (the limit + 1), older than id $3,
    /// in state $4 (NULL: any).
    static let deliveries = SQLStatement("pushrelay_webhook_deliveries", """
        SELECT e.id, e.event, e.url, e.state, e.attempts, e.last_status, e.last_error,
               \(isoTimestampSQL("e.created_at")) AS created_at, \(isoTimestampSQL("e.last_attempt_at")) AS last_attempt_at,
               CASE WHEN e.state = 'pending' THEN \(isoTimestampSQL("e.next_attempt_at")) END AS next_attempt_at,
               \(isoTimestampSQL("e.finished_at")) AS finished_at, e.payload::text AS payload
        FROM webhook_events e
        WHERE e.app_id = (SELECT id FROM apps WHERE app_key = $1) AND e.id < $3::bigint AND ($4::text IS NULL OR e.state = $4::text)
        ORDER BY e.id DESC LIMIT $2::integer
        """)

    /// Puts the app's dead letters back in the outbox, due now, with a fresh retry horizon;
    /// the ids of those retried.
    static let retryDead = SQLStatement("pushrelay_webhook_retry_dead", """
        UPDATE webhook_events SET state = 'pending', next_attempt_at = now(), horizon_from = now(), finished_at = NULL, lease_owner = NULL
        WHERE app_id = (SELECT app_id FROM webhooks w JOIN apps a ON a.id = w.app_id WHERE a.app_key = $1) AND state = 'dead'
        RETURNING id
        """)

    static let all = [put, metadata, delete, withWebhook, deliveries, retryDead]
}
