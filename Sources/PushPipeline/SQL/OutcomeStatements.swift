import PostgresStore

/// Every statement that records a chunk's outcomes, one text per variant: the write's count,
/// the invalidated tokens, and the write itself, by the chunk's only writer (`writeFirst`)
/// or by one that may meet outcomes recorded already (`write`).
enum OutcomeStatements {
    /// Counts a write of chunk $1: the leases it had and the writes before this one.
    static let countWrite = SQLStatement("pushrelay_count_chunk_write", """
        UPDATE push_chunks SET writes = writes + 1 WHERE id = $1 RETURNING leases, writes - 1 AS before
        """)

    /// Marks the refused tokens dead: $1 device ids, $2 reasons, $3 APNs' timestamps (NULL:
    /// none), $4 when they were sent, $5 the app; the registry's rule keeps a token registered
    /// again since. Returns the ids it invalidated.
    static let invalidate = SQLStatement("pushrelay_invalidate_outcomes", """
        UPDATE devices d SET active = false, invalidated_at = now(), invalidation_reason = v.reason,
               apns_invalidated_at = v.since
        FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS v(id, reason, since)
        WHERE d.app_id = $5 AND d.id = v.id AND d.active AND d.registered_at < coalesce(v.since, $4::timestamptz)
        RETURNING d.id
        """)

    static let writeFirst = SQLStatement("pushrelay_write_outcomes_first", text(onConflict: false))

    static let write = SQLStatement("pushrelay_write_outcomes", text(onConflict: true))

    /// The write as one statement: $2…$5 the outcomes other than `sent`, $11 the sent
    /// devices' ids ascending and $12 the number of each one's run, a span each; the last
    /// parameter says whether the chunk is Android's (its sent devices count in the message's
    /// `android_sent_count` too). With `onConflict`, devices that have an outcome for the
    /// message already are skipped.
    private static func text(onConflict: Bool) -> String {
        let android = onConflict ? "$13::boolean" : "$20::boolean"
        // With `onConflict` only what was recorded counts, read back with RETURNING; without
        // it everything is, so the counts come as parameters ($13/$14 failures by reason,
        // $15…$19 per outcome) and nothing is read back.
        let failed = onConflict
            ? "SELECT reason, count(*) AS n FROM inserted WHERE outcome IN ('failed', 'invalidated', 'expired') AND reason IS NOT NULL GROUP BY reason"
            : "SELECT reason, n FROM unnest($13::text[], $14::integer[]) AS f(reason, n)"
        let counted = onConflict ? """
            SELECT (SELECT coalesce(sum(n), 0) FROM spans) AS sent,
                   count(*) FILTER (WHERE outcome = 'failed') AS failed,
                   count(*) FILTER (WHERE outcome = 'invalidated') AS invalidated,
                   count(*) FILTER (WHERE outcome = 'expired') AS expired,
                   count(*) FILTER (WHERE outcome = 'withdrawn') AS withdrawn
            FROM inserted
            """ : "SELECT $15::bigint AS sent, $16::bigint AS failed, $17::bigint AS invalidated, $18::bigint AS expired, $19::bigint AS withdrawn"
        return """
            WITH inserted AS (
                INSERT INTO deliveries (message_id, device_id, outcome, reason, attempts)
                SELECT $1, v.id, v.outcome, v.reason, v.attempts
                FROM unnest($2::bigint[], $3::text[], $4::text[], $5::integer[]) AS v(id, outcome, reason, attempts)
                \(onConflict ? "WHERE NOT \(DeliverySpans.recordedSQL(message: "$1", device: "v.id")) RETURNING device_id, outcome, reason" : "")
            ), spans AS (
                INSERT INTO delivery_spans (message_id, app_id, lo, hi, device_ids, at)
                SELECT $1, $7, min(v.id), max(v.id), array_agg(v.id ORDER BY v.id), now()
                FROM unnest($11::bigint[], $12::integer[]) AS v(id, run)
                \(onConflict ? "WHERE NOT \(DeliverySpans.recordedSQL(message: "$1", device: "v.id"))" : "")
                GROUP BY v.run
                \(onConflict ? "RETURNING cardinality(device_ids) AS n" : "")
            ), failed AS (
                \(failed)
            ), failures AS (
                INSERT INTO message_failures (message_id, reason, count)
                SELECT $1, reason, n FROM failed
                ON CONFLICT (message_id, reason) DO UPDATE SET count = message_failures.count + EXCLUDED.count
            ), counts AS (
                \(counted)
            ), finished AS (
                UPDATE push_chunks SET state = 'done', lease_owner = NULL, lease_expires_at = NULL
                WHERE id = $8 AND lease_owner = $9 AND state = 'leased' AND $10::boolean
                RETURNING id
            ), rollup AS (
                -- The admin reports' per-minute rollup (migration 0010), from the same rows.
                INSERT INTO delivery_stats AS s (app_id, minute, sent, failed, invalidated, expired, withdrawn, retries)
                SELECT $7, date_trunc('minute', now()), c.sent, c.failed, c.invalidated, c.expired, c.withdrawn, $6
                FROM counts c WHERE c.sent + c.failed + c.invalidated + c.expired + c.withdrawn + $6 > 0
                ON CONFLICT (app_id, minute) DO UPDATE SET sent = s.sent + EXCLUDED.sent, failed = s.failed + EXCLUDED.failed,
                    invalidated = s.invalidated + EXCLUDED.invalidated, expired = s.expired + EXCLUDED.expired,
                    withdrawn = s.withdrawn + EXCLUDED.withdrawn, retries = s.retries + EXCLUDED.retries
            ), failure_rollup AS (
                INSERT INTO delivery_failure_stats AS f (app_id, minute, reason, count)
                SELECT $7, date_trunc('minute', now()), reason, n FROM failed
                ON CONFLICT (app_id, minute, reason) DO UPDATE SET count = f.count + EXCLUDED.count
            ), progress AS (
                SELECT c.*, (SELECT count(*) FROM finished) AS chunks FROM counts c
            )
            UPDATE messages m SET sent_count = m.sent_count + p.sent,
                   android_sent_count = m.android_sent_count + CASE WHEN \(android) THEN p.sent ELSE 0 END,
                   failed_count = m.failed_count + p.failed,
                   invalidated_count = m.invalidated_count + p.invalidated, expired_count = m.expired_count + p.expired,
                   retry_count = m.retry_count + $6,
                   first_sent_at = CASE WHEN p.sent > 0 THEN coalesce(m.first_sent_at, now()) ELSE m.first_sent_at END,
                   last_sent_at = CASE WHEN p.sent > 0 THEN now() ELSE m.last_sent_at END,
                   chunks_pending = m.chunks_pending - p.chunks,
                   state = CASE WHEN m.state = 'sending' AND m.chunks_pending - p.chunks = 0 THEN 'done' ELSE m.state END,
                   finished_at = CASE WHEN m.state = 'sending' AND m.chunks_pending - p.chunks = 0 THEN now() ELSE m.finished_at END
            FROM progress p WHERE m.id = $1
            RETURNING m.state
            """
    }

    static let all = [countWrite, invalidate, writeFirst, write]
}
