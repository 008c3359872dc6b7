import PostgresStore
import RelayCore

/// Every statement that records chunks' outcomes, one text per variant: the writes' count,
/// the invalidated tokens, and the write itself, by the chunks' only writers for a whole
/// batch (`writeFirst`) or by one that may meet outcomes recorded already (`write`).
enum OutcomeStatements {
    /// Counts a write of each chunk of $1 (no id twice): the leases each had and the writes
    /// before this one.
    static let countWrites = SQLStatement("pushrelay_count_chunk_writes", """
        UPDATE push_chunks SET writes = writes + 1 WHERE id = ANY ($1::bigint[]) RETURNING id, leases, writes - 1 AS before
        """)

    /// Marks the refused tokens dead: $1 device ids, $2 reasons, $3 APNs' timestamps (NULL:
    /// none), $4 when they were sent, $5 the app; the registry's rule keeps a token registered
    /// again since. A `device.invalidated` webhook event per device goes to the outbox in the
    /// same statement when the app's webhook subscribes to it (migration 0045). Returns the
    /// ids it invalidated.
    static let invalidate = SQLStatement("pushrelay_invalidate_outcomes", """
        WITH invalidated AS (
            UPDATE devices d SET active = false, invalidated_at = now(), invalidation_reason = v.reason,
                   apns_invalidated_at = v.since
            FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS v(id, reason, since)
            WHERE d.app_id = $5 AND d.id = v.id AND d.active AND d.registered_at < coalesce(v.since, $4::timestamptz)
            RETURNING d.id, d.registration_id, d.platform, d.token, d.alias, d.invalidation_reason
        ), events AS (
            INSERT INTO webhook_events (app_id, event, payload)
            SELECT w.app_id, '\(WebhookEventType.deviceInvalidated.rawValue)', jsonb_build_object(
                'event', '\(WebhookEventType.deviceInvalidated.rawValue)', 'registration_id', replace(i.registration_id::text, '-', ''),
                'platform', i.platform, 'token', i.token, 'alias', i.alias, 'reason', i.invalidation_reason,
                'invalidated_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
            FROM invalidated i JOIN webhooks w ON w.app_id = $5 AND '\(WebhookEventType.deviceInvalidated.rawValue)' = ANY (w.events)
        )
        SELECT id FROM invalidated
        """)

    /// `invalidate` for a chunk of VoIP tokens: the refused VoIP tokens are cleared, with when
    /// and why, and their devices (and notification tokens) stay active; a VoIP token
    /// registered again since is kept. Returns the ids whose VoIP token it cleared.
    static let invalidateVoIP = SQLStatement("pushrelay_invalidate_voip_outcomes", """
        UPDATE devices d SET voip_token = NULL, voip_invalidated_at = now(), voip_invalidation_reason = v.reason
        FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS v(id, reason, since)
        WHERE d.app_id = $5 AND d.id = v.id AND d.voip_token IS NOT NULL AND d.voip_registered_at < coalesce(v.since, $4::timestamptz)
        RETURNING d.id
        """)

    /// `invalidate` for a chunk of another kind of token, $6 (`device_push_tokens.kind`): the
    /// refused tokens of that kind are dropped, the device and its other tokens stay; one
    /// registered again since is kept. Returns the ids whose token it dropped.
    static let invalidatePushTokens = SQLStatement("pushrelay_invalidate_push_token_outcomes", """
        DELETE FROM device_push_tokens k
        USING unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS v(id, reason, since)
        WHERE k.app_id = $5 AND k.kind = $6::text AND k.device_id = v.id AND k.registered_at < coalesce(v.since, $4::timestamptz)
        RETURNING k.device_id AS id
        """)

    /// `invalidate` for a chunk of Live Activity push-to-start tokens: the refused tokens (of
    /// the attributes type of message $6) are deleted; a token registered again since is kept,
    /// and the devices stay active; the row goes, reason and all. Returns the ids
    /// whose token it deleted.
    static let invalidateStartTokens = SQLStatement("pushrelay_invalidate_la_start_outcomes", """
        DELETE FROM live_activity_start_tokens s
        USING unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS v(id, reason, since)
        WHERE s.app_id = $5 AND s.device_id = v.id AND s.registered_at < coalesce(v.since, $4::timestamptz)
          AND s.attributes_type = (SELECT m.body::jsonb #>> '{live_activity,attributes_type}' FROM messages m WHERE m.id = $6::bigint)
        RETURNING s.device_id AS id
        """)

    /// `invalidateStartTokens` for a chunk of update tokens: those of message $6's activity.
    static let invalidateActivityTokens = SQLStatement("pushrelay_invalidate_la_update_outcomes", """
        DELETE FROM live_activity_tokens t
        USING unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS v(id, reason, since)
        WHERE t.app_id = $5 AND t.device_id = v.id AND t.registered_at < coalesce(v.since, $4::timestamptz)
          AND t.activity_id = (SELECT m.body::jsonb #>> '{live_activity,activity_id}' FROM messages m WHERE m.id = $6::bigint)
        RETURNING t.device_id AS id
        """)

    /// The writes of a batch of chunks (of any messages and apps), each by the chunk's only
    /// writer, so everything goes in and the counts come as parameters. A row per chunk from
    /// $1…$10: id, message, app, whether its devices are all done, retries, and its counts
    /// sent, failed, invalidated, expired, withdrawn; $11 the holder. The rows below name their
    /// chunk by its place in those (1, 2, …): $12…$16 the outcomes other than `sent`; $17…$19
    /// the sent devices' ids ascending with the number of each one's run in its chunk, a span
    /// each; $20…$22 the failures by reason; $23 whether each chunk is Android's (its sent
    /// devices count in the message's `android_sent_count` too). The message rows (their counters) and the apps'
    /// rollup rows, which concurrent writers share, get one update each per batch, from the
    /// batch's sums. Completion is a count of the chunks still pending, decremented here:
    /// after waiting for the row lock the update re-reads the row, so two writers finishing
    /// the last two chunks cannot both miss it. Returns each message's state.
    static let writeFirst = SQLStatement("pushrelay_write_outcomes_first", """
        WITH chunk AS (
            SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::boolean[], $5::integer[],
                                 $6::integer[], $7::integer[], $8::integer[], $9::integer[], $10::integer[], $23::boolean[])
                WITH ORDINALITY AS c(id, message_id, app_id, complete, retries, sent, failed, invalidated, expired, withdrawn, android, n)
        ), inserted AS (
            INSERT INTO deliveries (message_id, device_id, outcome, reason, attempts)
            SELECT c.message_id, v.id, v.outcome, v.reason, v.attempts
            FROM unnest($12::integer[], $13::bigint[], $14::text[], $15::text[], $16::integer[]) AS v(chunk, id, outcome, reason, attempts)
            JOIN chunk c ON c.n = v.chunk
        ), spans AS (
            INSERT INTO delivery_spans (message_id, app_id, lo, hi, device_ids, at)
            SELECT c.message_id, c.app_id, min(v.id), max(v.id), array_agg(v.id ORDER BY v.id), now()
            FROM unnest($17::integer[], $18::bigint[], $19::integer[]) AS v(chunk, id, run)
            JOIN chunk c ON c.n = v.chunk
            GROUP BY c.n, c.message_id, c.app_id, v.run
        ), failed AS (
            SELECT c.message_id, c.app_id, f.reason, f.count
            FROM unnest($20::integer[], $21::text[], $22::integer[]) AS f(chunk, reason, count)
            JOIN chunk c ON c.n = f.chunk
        ), failures AS (
            INSERT INTO message_failures (message_id, reason, count)
            SELECT message_id, reason, sum(count) FROM failed GROUP BY message_id, reason
            \(addedToFailures)
        ), finished AS (
            UPDATE push_chunks p SET state = 'done', lease_owner = NULL, lease_expires_at = NULL
            FROM chunk c
            -- The lists name the rows for an index (by the join alone, PostgreSQL read every unfinished chunk).
            WHERE p.id = ANY ($1::bigint[]) AND p.message_id = ANY ($2::bigint[]) AND p.id = c.id AND c.complete
              AND p.lease_owner = $11::text AND p.state = 'leased'
            RETURNING p.message_id
        ), rollup AS (
            -- The admin reports' per-minute rollup (migration 0010), a row per app of the batch.
            INSERT INTO delivery_stats AS s (app_id, minute, sent, failed, invalidated, expired, withdrawn, retries)
            SELECT app_id, date_trunc('minute', now()), sum(sent), sum(failed), sum(invalidated), sum(expired), sum(withdrawn), sum(retries)
            FROM chunk GROUP BY app_id
            HAVING sum(sent + failed + invalidated + expired + withdrawn + retries) > 0
            \(addedToRollup)
        ), failure_rollup AS (
            INSERT INTO delivery_failure_stats AS f (app_id, minute, reason, count)
            SELECT app_id, date_trunc('minute', now()), reason, sum(count) FROM failed GROUP BY app_id, reason
            \(addedToFailureRollup)
        ), progress AS (
            SELECT c.message_id, sum(c.sent) AS sent, sum(c.failed) AS failed, sum(c.invalidated) AS invalidated,
                   sum(c.expired) AS expired, sum(c.retries) AS retries, coalesce(max(f.chunks), 0) AS chunks,
                   sum(c.sent) FILTER (WHERE c.android) AS android_sent
            FROM chunk c LEFT JOIN (SELECT message_id, count(*) AS chunks FROM finished GROUP BY message_id) f ON f.message_id = c.message_id
            GROUP BY c.message_id
        )
        \(countedInMessages)
        FROM progress p WHERE m.id = ANY ($2::bigint[]) AND m.id = p.message_id
        RETURNING m.id, m.state
        """)

    /// One chunk's write by a holder that may meet outcomes recorded already (a lease ran out,
    /// or a write whose success was lost): devices with an outcome for the message are
    /// skipped, and only what was recorded counts, read back with RETURNING. $1 the message,
    /// $2…$5 the outcomes other than `sent`, $6 retries, $7 the app, $8 the chunk, $9 the
    /// holder, $10 whether the chunk's devices are all done, $11 the sent devices' ids
    /// ascending and $12 the number of each one's run, a span each, $13 whether the chunk is
    /// Android's.
    static let write = SQLStatement("pushrelay_write_outcomes", """
        WITH inserted AS (
            INSERT INTO deliveries (message_id, device_id, outcome, reason, attempts)
            SELECT $1, v.id, v.outcome, v.reason, v.attempts
            FROM unnest($2::bigint[], $3::text[], $4::text[], $5::integer[]) AS v(id, outcome, reason, attempts)
            WHERE NOT \(DeliverySpans.recordedSQL(message: "$1", device: "v.id"))
            RETURNING device_id, outcome, reason
        ), spans AS (
            INSERT INTO delivery_spans (message_id, app_id, lo, hi, device_ids, at)
            SELECT $1, $7, min(v.id), max(v.id), array_agg(v.id ORDER BY v.id), now()
            FROM unnest($11::bigint[], $12::integer[]) AS v(id, run)
            WHERE NOT \(DeliverySpans.recordedSQL(message: "$1", device: "v.id"))
            GROUP BY v.run
            RETURNING cardinality(device_ids) AS n
        ), failed AS (
            SELECT reason, count(*) AS n FROM inserted WHERE outcome IN ('failed', 'invalidated', 'expired') AND reason IS NOT NULL GROUP BY reason
        ), failures AS (
            INSERT INTO message_failures (message_id, reason, count)
            SELECT $1, reason, n FROM failed
            \(addedToFailures)
        ), counts AS (
            SELECT (SELECT coalesce(sum(n), 0) FROM spans) AS sent,
                   count(*) FILTER (WHERE outcome = 'failed') AS failed,
                   count(*) FILTER (WHERE outcome = 'invalidated') AS invalidated,
                   count(*) FILTER (WHERE outcome = 'expired') AS expired,
                   count(*) FILTER (WHERE outcome = 'withdrawn') AS withdrawn
            FROM inserted
        ), finished AS (
            UPDATE push_chunks SET state = 'done', lease_owner = NULL, lease_expires_at = NULL
            WHERE id = $8 AND lease_owner = $9 AND state = 'leased' AND $10::boolean
            RETURNING id
        ), rollup AS (
            -- The admin reports' per-minute rollup (migration 0010), from the same rows.
            INSERT INTO delivery_stats AS s (app_id, minute, sent, failed, invalidated, expired, withdrawn, retries)
            SELECT $7, date_trunc('minute', now()), c.sent, c.failed, c.invalidated, c.expired, c.withdrawn, $6
            FROM counts c WHERE c.sent + c.failed + c.invalidated + c.expired + c.withdrawn + $6 > 0
            \(addedToRollup)
        ), failure_rollup AS (
            INSERT INTO delivery_failure_stats AS f (app_id, minute, reason, count)
            SELECT $7, date_trunc('minute', now()), reason, n FROM failed
            \(addedToFailureRollup)
        ), progress AS (
            SELECT c.*, $6::bigint AS retries, (SELECT count(*) FROM finished) AS chunks,
                   CASE WHEN $13::boolean THEN c.sent ELSE 0 END AS android_sent
            FROM counts c
        )
        \(countedInMessages)
        FROM progress p WHERE m.id = $1
        RETURNING m.state
        """)

    // MARK: Shared by both writes

    /// Adds an insert's counts to the app's row of the minute (`delivery_stats AS s`).
    private static let addedToRollup = """
        ON CONFLICT (app_id, minute) DO UPDATE SET sent = s.sent + EXCLUDED.sent, failed = s.failed + EXCLUDED.failed,
                invalidated = s.invalidated + EXCLUDED.invalidated, expired = s.expired + EXCLUDED.expired,
                withdrawn = s.withdrawn + EXCLUDED.withdrawn, retries = s.retries + EXCLUDED.retries
        """

    private static let addedToFailures = "ON CONFLICT (message_id, reason) DO UPDATE SET count = message_failures.count + EXCLUDED.count"

    /// For `delivery_failure_stats AS f`.
    private static let addedToFailureRollup = "ON CONFLICT (app_id, minute, reason) DO UPDATE SET count = f.count + EXCLUDED.count"

    /// The message's counters, by `progress p` (`sent`, of them `android_sent`, `failed`,
    /// `invalidated`, `expired`, `retries`, and `chunks` finished), and the message done when no chunk is left.
    private static let countedInMessages = """
        UPDATE messages m SET sent_count = m.sent_count + p.sent, android_sent_count = m.android_sent_count + coalesce(p.android_sent, 0),
                   failed_count = m.failed_count + p.failed,
                   invalidated_count = m.invalidated_count + p.invalidated, expired_count = m.expired_count + p.expired,
                   retry_count = m.retry_count + p.retries,
                   first_sent_at = CASE WHEN p.sent > 0 THEN coalesce(m.first_sent_at, now()) ELSE m.first_sent_at END,
                   last_sent_at = CASE WHEN p.sent > 0 THEN now() ELSE m.last_sent_at END,
                   chunks_pending = m.chunks_pending - p.chunks,
                   state = CASE WHEN m.state = 'sending' AND m.chunks_pending - p.chunks = 0 THEN 'done' ELSE m.state END,
                   finished_at = CASE WHEN m.state = 'sending' AND m.chunks_pending - p.chunks = 0 THEN now() ELSE m.finished_at END
        """

    static let all = [countWrites, invalidate, invalidateVoIP, invalidatePushTokens, invalidateStartTokens, invalidateActivityTokens,
                      writeFirst, write]
}
