import PostgresStore
import RelayCore

/// The statement that records a device's receipts (migration 0044), written whole here.
enum ReceiptStatements {
    /// Records receipts of device $2 of app $1 ($3: it is an Android device) in one
    /// statement however many a batch holds: $4 msg_ids (bigint[]), $5 events (text[]), $6
    /// the times the app gave (float8[] of Unix seconds, NULL: now), element by element.
    ///
    /// `known`: the receipts for the app's messages accepted within the retention ($7 days;
    /// older ones' day partitions may be gone), others left out the same way whether the
    /// msg_id is unknown or another app's. Each is inserted once per (message, device,
    /// event) — a repeat, in the batch or later, is a conflict that does nothing — and only
    /// what was inserted is added to the message's counters, so the counters equal the rows.
    /// The device's last receipt is noted on its secret's row; a `receipt` webhook event is
    /// written per receipt recorded when the app's webhook subscribes, and a `callback` event
    /// when the message's callback asks for its type. Answers how many were known and how
    /// many recorded.
    static let record = SQLStatement("pushrelay_receipts_record", """
        WITH known AS (
            SELECT m.id AS message_id, g.event,
                   least(greatest(coalesce(to_timestamp(g.at), now()), m.created_at), now()) AS at
            FROM unnest($4::bigint[], $5::text[], $6::float8[]) AS g(message_id, event, at)
            JOIN messages m ON m.id = g.message_id
            WHERE m.app_id = $1 AND m.id >= pushrelay_message_id_at(now() - make_interval(days => $7::integer))
        ), recorded AS (
            INSERT INTO receipts (message_id, device_id, event, at)
            SELECT message_id, $2, event, at FROM known
            ON CONFLICT DO NOTHING
            RETURNING message_id, event, at
        ), events AS (
            -- A `receipt` webhook event per receipt recorded, when the app's webhook subscribes (migration 0045).
            INSERT INTO webhook_events (app_id, event, payload)
            SELECT w.app_id, '\(WebhookEventType.receipt.rawValue)', jsonb_build_object(
                'event', '\(WebhookEventType.receipt.rawValue)', 'msg_id', r.message_id::text,
                'registration_id', \(RegistrationID.sql("d.registration_id")), 'platform', d.platform, 'receipt', r.event,
                'at', \(isoTimestampSQL("r.at")))
            FROM recorded r JOIN webhooks w ON w.app_id = $1 AND '\(WebhookEventType.receipt.rawValue)' = ANY (w.events)
            JOIN devices d ON d.app_id = $1 AND d.id = $2
        ), callbacks AS (
            -- A `callback` event per receipt recorded whose type its message's callback asks for
            -- (1 received, 2 clicked), when the app has a webhook to sign it (migration 0047).
            INSERT INTO webhook_events (app_id, event, url, payload)
            SELECT w.app_id, 'callback', c.url, jsonb_build_object(
                'event', 'callback', 'type', t.bit, 'msg_id', r.message_id::text,
                'registration_id', \(RegistrationID.sql("d.registration_id")), 'platform', d.platform, 'receipt', r.event,
                'at', \(isoTimestampSQL("r.at")), 'params', c.params)
            FROM recorded r CROSS JOIN LATERAL (SELECT CASE r.event WHEN 'received' THEN 1 ELSE 2 END AS bit) t
            JOIN message_callbacks c ON c.message_id = r.message_id AND c.types & t.bit <> 0
            JOIN webhooks w ON w.app_id = $1
            JOIN devices d ON d.app_id = $1 AND d.id = $2
        ), counted AS (
            INSERT INTO message_receipt_counts AS c (message_id, received, opened, android_received, android_opened)
            SELECT message_id, count(*) FILTER (WHERE event = 'received'), count(*) FILTER (WHERE event = 'opened'),
                   count(*) FILTER (WHERE event = 'received' AND $3::boolean), count(*) FILTER (WHERE event = 'opened' AND $3::boolean)
            FROM recorded GROUP BY message_id
            ON CONFLICT (message_id) DO UPDATE SET
                received = c.received + EXCLUDED.received, opened = c.opened + EXCLUDED.opened,
                android_received = c.android_received + EXCLUDED.android_received,
                android_opened = c.android_opened + EXCLUDED.android_opened
        ), seen AS (
            UPDATE device_secrets SET last_receipt_at = now()
            WHERE app_id = $1 AND device_id = $2 AND EXISTS (SELECT 1 FROM known)
        )
        SELECT (SELECT count(*) FROM known) AS known, (SELECT count(*) FROM recorded) AS recorded
        """)

    static let all = [record]
}
