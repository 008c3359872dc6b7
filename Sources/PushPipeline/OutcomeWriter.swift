import Foundation
import PostgresStore
import PushCore

/// Writes a batch of outcomes back in one transaction: the sent devices as `delivery_spans`
/// rows (a run of ids each, `DeliverySpans`, migration 0025), every other outcome as a
/// `deliveries` row, the message's counters, `message_failures` and the admin reports'
/// per-minute rollups for exactly what was recorded, and — when the chunk has no device left
/// — the chunk and possibly the message as done; dead tokens first. Nothing is written per
/// sent device.
///
/// A device has at most one outcome per message. Every write of a chunk first counts itself
/// in the chunk's row, which locks it: writes of the same chunk (a holder whose lease ran
/// out, and the node that leased it next) take turns, and each sees what the others
/// recorded.
struct OutcomeWriter: Sendable {
    let pool: PostgresPool
    let owner: String

    /// What the batch left behind.
    struct Written: Sendable, Equatable {
        /// The message's state after the write (`withdrawn` tells the sender to stop).
        var messageState: MessageState
        /// Outcomes as recorded: an invalidation the 410 rule refused becomes `failed`.
        var counts: [DeliveryOutcome: Int]
    }

    /// - Parameters:
    ///   - sentAt: when the batch's round began; a 410 without a timestamp only invalidates
    ///     a token registered before it.
    ///   - chunkComplete: every device of the chunk now has an outcome.
    func write(_ chunk: LeasedChunk, outcomes: [ChunkRun.Outcome], retries: Int, sentAt: Date, chunkComplete: Bool) async throws -> Written {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await pool.withConnection(priority: chunk.priority) { [self] connection in
                    try connection.transaction { connection in
                        // Only the chunk's first holder, while nobody has leased it since and
                        // every write of it so far is one it saw succeed, is sure to be the
                        // only writer of its devices: it writes without looking for their
                        // outcomes, the cheaper statement.
                        let row = try connection.preparedQuery("pushrelay_count_chunk_write", """
                            UPDATE push_chunks SET writes = writes + 1 WHERE id = $1 RETURNING leases, writes - 1 AS before
                            """, [chunk.id]).first
                        let alone = try chunk.leases == 1 && row?.int("leases") == 1 && row?.int("before") == chunk.writes
                        return try write(chunk, outcomes: outcomes, retries: retries, sentAt: sentAt, chunkComplete: chunkComplete,
                                         mayConflict: !alone, on: connection)
                    }
                }
            } catch PostgresError.server(let state, _) where state.isTransactionConflict && attempt < 5 {
                // Two chunks of different messages touching the same devices: try again.
                continue
            }
        }
    }

    private func write(_ chunk: LeasedChunk, outcomes: [ChunkRun.Outcome], retries: Int, sentAt: Date, chunkComplete: Bool,
                       mayConflict: Bool, on connection: PostgresConnection) throws -> Written {
        var outcomes = outcomes
        let invalid = outcomes.filter { $0.outcome == .invalidated }
        if !invalid.isEmpty {
            // The registry's rule: a token registered again after APNs' timestamp (or, without
            // one, after we sent) stays active.
            let invalidated = Set(try connection.query("""
                UPDATE devices d SET active = false, invalidated_at = now(), invalidation_reason = v.reason,
                       apns_invalidated_at = v.since
                FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS v(id, reason, since)
                WHERE d.app_id = $5 AND d.id = v.id AND d.active AND d.registered_at < coalesce(v.since, $4::timestamptz)
                RETURNING d.id
                """, [SQLArray.bigint(invalid.map(\.deviceID)), SQLArray.text(invalid.map(\.reason)),
                      SQLArray.timestamps(invalid.map(\.invalidatedSince)), sentAt, chunk.appID]).map { Int64(try $0.int("id")) })
            for index in outcomes.indices where outcomes[index].outcome == .invalidated && !invalidated.contains(outcomes[index].deviceID) {
                outcomes[index].outcome = .failed
            }
        }
        // One statement: the rows and spans, the failures by reason, the rollups and the
        // counters, all from what was actually recorded, and the chunk and perhaps the message
        // finished. The message row (its counters) and the app's rollup row are what
        // concurrent writers share, and they are updated last, so their locks are held only
        // while the statement ends and commits. Completion is a count of the chunks still
        // pending, decremented here: after waiting for the row lock the update re-reads the
        // row, so two writers finishing the last two chunks cannot both miss it.
        let others = outcomes.filter { $0.outcome != .sent }
        let sent = DeliverySpans.numbered(outcomes.filter { $0.outcome == .sent }.map(\.deviceID))
        var counts: [DeliveryOutcome: Int] = [:]
        var failures: [String: Int] = [:]
        for outcome in outcomes {
            counts[outcome.outcome, default: 0] += 1
            if let reason = outcome.reason, [.failed, .invalidated, .expired].contains(outcome.outcome) { failures[reason, default: 0] += 1 }
        }
        var parameters: [(any PostgresBindable)?] = [
            chunk.messageID, SQLArray.bigint(others.map(\.deviceID)), SQLArray.text(others.map(\.outcome.rawValue)),
            SQLArray.text(others.map(\.reason)), SQLArray.int(others.map(\.attempts)), retries, chunk.appID, chunk.id, owner,
            chunkComplete, SQLArray.bigint(sent.ids), SQLArray.int(sent.runs),
        ]
        if !mayConflict {
            // Everything goes in: the counts are those of the batch.
            let reasons = failures.keys.sorted()
            parameters += [SQLArray.text(reasons), SQLArray.int(reasons.map { failures[$0] })]
            parameters += [DeliveryOutcome.sent, .failed, .invalidated, .expired, .withdrawn].map { counts[$0, default: 0] }
        }
        let state = try connection.preparedQuery(mayConflict ? "pushrelay_write_outcomes" : "pushrelay_write_outcomes_first",
                                                 Self.statement(onConflict: mayConflict), parameters)
        let messageState: MessageState = try state.first?.value("state") ?? .done
        return Written(messageState: messageState, counts: counts)
    }

    /// The write as one statement: $2…$5 the outcomes other than `sent`, $11 the sent
    /// devices' ids ascending and $12 the number of each one's run, a span each. With
    /// `onConflict`, devices that have an outcome for the message already are skipped.
    private static func statement(onConflict: Bool) -> String {
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
            UPDATE messages m SET sent_count = m.sent_count + p.sent, failed_count = m.failed_count + p.failed,
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
}
