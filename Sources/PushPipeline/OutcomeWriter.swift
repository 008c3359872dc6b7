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
///
/// Concurrent writes (of different chunks and messages) share a transaction
/// (`GroupCommit`), one per lane: under load the rows every write updates (the app's
/// per-minute rollup) are locked and committed once per batch, not once per chunk, and
/// writers do not queue on their locks one commit after another.
struct OutcomeWriter: Sendable {
    let pool: PostgresPool
    let owner: String
    private let targeted: GroupCommit<Batch, Written>
    private let bulk: GroupCommit<Batch, Written>

    /// What the batch left behind.
    struct Written: Sendable, Equatable {
        /// The message's state after the write (`withdrawn` tells the sender to stop).
        var messageState: MessageState
        /// Outcomes as recorded: an invalidation the 410 rule refused becomes `failed`.
        var counts: [DeliveryOutcome: Int]
    }

    /// A chunk's outcomes to write.
    private struct Batch: Sendable {
        var chunk: LeasedChunk
        var outcomes: [ChunkRun.Outcome]
        var retries: Int
        var sentAt: Date
        var chunkComplete: Bool
    }

    init(pool: PostgresPool, owner: String) {
        self.pool = pool
        self.owner = owner
        func committer(_ priority: PostgresPriority) -> GroupCommit<Batch, Written> {
            GroupCommit(pool: pool, priority: priority, maxInFlight: max(1, pool.size / 2), maxBatch: 64,
                        perform: { batch, connection in try Self.write(batch, owner: owner, on: connection) },
                        single: { batch in try await Self.writeAlone(batch, pool: pool, owner: owner) })
        }
        targeted = committer(.normal)
        bulk = committer(.bulk)
    }

    /// - Parameters:
    ///   - sentAt: when the batch's round began; a 410 without a timestamp only invalidates
    ///     a token registered before it.
    ///   - chunkComplete: every device of the chunk now has an outcome.
    func write(_ chunk: LeasedChunk, outcomes: [ChunkRun.Outcome], retries: Int, sentAt: Date, chunkComplete: Bool) async throws -> Written {
        let batch = Batch(chunk: chunk, outcomes: outcomes, retries: retries, sentAt: sentAt, chunkComplete: chunkComplete)
        return try await (chunk.priority == .bulk ? bulk : targeted).write(batch)
    }

    /// A write in a transaction of its own, tried again after a conflict.
    private static func writeAlone(_ batch: Batch, pool: PostgresPool, owner: String) async throws -> Written {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await pool.withConnection(priority: batch.chunk.priority) { connection in
                    try connection.transaction { connection in try write(batch, owner: owner, on: connection) }
                }
            } catch PostgresError.server(let state, _) where state.isTransactionConflict && attempt < 5 {
                // Two chunks of different messages touching the same devices: try again.
                continue
            }
        }
    }

    /// A write inside the caller's transaction.
    private static func write(_ batch: Batch, owner: String, on connection: PostgresConnection) throws -> Written {
        let chunk = batch.chunk
        // Only the chunk's first holder, while nobody has leased it since and every write of
        // it so far is one it saw succeed, is sure to be the only writer of its devices: it
        // writes without looking for their outcomes, the cheaper statement.
        let row = try connection.preparedQuery(OutcomeStatements.countWrite, [chunk.id]).first
        let alone = try chunk.leases == 1 && row?.int("leases") == 1 && row?.int("before") == chunk.writes
        return try write(chunk, outcomes: batch.outcomes, retries: batch.retries, sentAt: batch.sentAt, chunkComplete: batch.chunkComplete,
                         owner: owner, mayConflict: !alone, on: connection)
    }

    private static func write(_ chunk: LeasedChunk, outcomes: [ChunkRun.Outcome], retries: Int, sentAt: Date, chunkComplete: Bool,
                              owner: String, mayConflict: Bool, on connection: PostgresConnection) throws -> Written {
        var outcomes = outcomes
        let invalid = outcomes.filter { $0.outcome == .invalidated }
        if !invalid.isEmpty {
            // The registry's rule: a token registered again after APNs' timestamp (or, without
            // one, after we sent) stays active.
            let invalidated = Set(try connection.preparedQuery(OutcomeStatements.invalidate, [SQLArray.bigint(invalid.map(\.deviceID)), SQLArray.text(invalid.map(\.reason)),
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
        parameters.append(chunk.platform == .android)
        let state = try connection.preparedQuery(mayConflict ? OutcomeStatements.write : OutcomeStatements.writeFirst, parameters)
        let messageState: MessageState = try state.first?.value("state") ?? .done
        return Written(messageState: messageState, counts: counts)
    }
}
