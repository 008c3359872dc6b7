import Foundation
import PostgresStore
import PushCore

/// Writes chunks' outcomes back: the sent devices as `delivery_spans` rows (a run of ids
/// each, `DeliverySpans`, migration 0025), every other outcome as a `deliveries` row, the
/// messages' counters, `message_failures` and the admin reports' per-minute rollups for
/// exactly what was recorded, and — when a chunk has no device left — the chunk and possibly
/// its message as done; dead tokens first. Nothing is written per sent device.
///
/// A device has at most one outcome per message. Every write of a chunk first counts itself
/// in the chunk's row, which locks it: writes of the same chunk (a holder whose lease ran
/// out, and the node that leased it next) take turns, and each sees what the others
/// recorded.
///
/// Concurrent writes (of different chunks and messages) share a transaction
/// (`GroupCommit`), one per lane, and its statements: one counts every write of the batch,
/// one records every write by its chunk's only writer (nearly all), with each message's
/// counters and each app's rollup row updated once from the batch's sums; a write that may
/// meet outcomes recorded already has a statement of its own. One transaction per lane at a
/// time: concurrent ones queued on the app's rollup row, holding their chunks' rows (and the
/// lease keeper behind them) meanwhile, while the next batch forms anyway.
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
            GroupCommit(pool: pool, priority: priority, maxInFlight: 1, maxBatch: 64,
                        performAll: { batches, connection in try Self.write(batches, owner: owner, on: connection).map { .success($0) } },
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
                    try connection.transaction { connection in try write([batch], owner: owner, on: connection)[0] }
                }
            } catch PostgresError.server(let state, _) where state.isTransactionConflict && attempt < 5 {
                // Two chunks of different messages touching the same devices: try again.
                continue
            }
        }
    }

    /// Writes inside the caller's transaction, each batch's answer in order.
    private static func write(_ batches: [Batch], owner: String, on connection: PostgresConnection) throws -> [Written] {
        // A chunk written twice in one batch (its lease ran out and this node leased it again)
        // counts each write apart, in order.
        guard Set(batches.map(\.chunk.id)).count == batches.count else {
            return try batches.map { try write([$0], owner: owner, on: connection)[0] }
        }
        let counted = try connection.preparedQuery(OutcomeStatements.countWrites, [SQLArray.bigint(batches.map(\.chunk.id))])
        let before = Dictionary(uniqueKeysWithValues: try counted.map { row in
            (Int64(try row.int("id")), (leases: try row.int("leases"), writes: try row.int("before")))
        })
        let tallies = try batches.map { batch in
            let chunk = batch.chunk
            // Only the chunk's first holder, while nobody has leased it since and every write
            // of it so far is one it saw succeed, is sure to be the only writer of its devices:
            // it writes without looking for their outcomes, with the batch's other such writes.
            let alone = chunk.leases == 1 && before[chunk.id]?.leases == 1 && before[chunk.id]?.writes == chunk.writes
            return (tally: Tally(batch, outcomes: try recordInvalidations(batch, on: connection)), alone: alone)
        }
        let first = tallies.filter(\.alone).map(\.tally)
        let states = first.isEmpty ? [:] : try writeFirst(first, owner: owner, on: connection)
        return try tallies.map { tally, alone in
            let state: MessageState = if alone { states[tally.batch.chunk.messageID] ?? .done } else {
                try writeMayConflict(tally, owner: owner, on: connection)
            }
            return Written(messageState: state, counts: tally.counts)
        }
    }

    /// The batch's outcomes with its invalidations recorded: the registry's rule keeps a
    /// token registered again after APNs' timestamp (or, without one, after we sent) active,
    /// and such a device's outcome is `failed`.
    private static func recordInvalidations(_ batch: Batch, on connection: PostgresConnection) throws -> [ChunkRun.Outcome] {
        var outcomes = batch.outcomes
        let invalid = outcomes.filter { $0.outcome == .invalidated }
        guard !invalid.isEmpty else { return outcomes }
        var parameters: [(any PostgresBindable)?] = [
            SQLArray.bigint(invalid.map(\.deviceID)), SQLArray.text(invalid.map(\.reason)), SQLArray.timestamps(invalid.map(\.invalidatedSince)),
            batch.sentAt, batch.chunk.appID,
        ]
        // A refused token of another kind is dropped for that kind only; the device stays.
        let statement: SQLStatement
        switch batch.chunk.platform {
        case .ios, .android: statement = OutcomeStatements.invalidate
        case .voip: statement = OutcomeStatements.invalidateVoIP
        case .location, .complication, .fileprovider, .pushtotalk:
            statement = OutcomeStatements.invalidatePushTokens
            parameters.append(batch.chunk.platform.rawValue)
        case .liveActivityStart:
            statement = OutcomeStatements.invalidateStartTokens
            parameters.append(batch.chunk.messageID)
        case .liveActivity:
            statement = OutcomeStatements.invalidateActivityTokens
            parameters.append(batch.chunk.messageID)
        }
        let invalidated = Set(try connection.preparedQuery(statement, parameters).map { Int64(try $0.int("id")) })
        for index in outcomes.indices where outcomes[index].outcome == .invalidated && !invalidated.contains(outcomes[index].deviceID) {
            outcomes[index].outcome = .failed
        }
        return outcomes
    }

    /// A write's outcomes sorted for the statements: the sent devices as spans, the others as
    /// rows, and the counts.
    private struct Tally {
        var batch: Batch
        var others: [ChunkRun.Outcome]
        var sent: (ids: [Int64], runs: [Int])
        var counts: [DeliveryOutcome: Int] = [:]
        /// Failed, invalidated and expired outcomes by reason.
        var failures: [String: Int] = [:]

        init(_ batch: Batch, outcomes: [ChunkRun.Outcome]) {
            self.batch = batch
            others = outcomes.filter { $0.outcome != .sent }
            sent = DeliverySpans.numbered(outcomes.filter { $0.outcome == .sent }.map(\.deviceID))
            for outcome in outcomes {
                counts[outcome.outcome, default: 0] += 1
                if let reason = outcome.reason, [.failed, .invalidated, .expired].contains(outcome.outcome) { failures[reason, default: 0] += 1 }
            }
        }
    }

    /// The first holders' writes in one statement; each message's state after it.
    private static func writeFirst(_ tallies: [Tally], owner: String, on connection: PostgresConnection) throws -> [Int64: MessageState] {
        let chunks = tallies.map(\.batch)
        var parameters: [(any PostgresBindable)?] = [
            SQLArray.bigint(chunks.map(\.chunk.id)), SQLArray.bigint(chunks.map(\.chunk.messageID)), SQLArray.bigint(chunks.map(\.chunk.appID)),
            SQLArray.bool(chunks.map(\.chunkComplete)), SQLArray.int(chunks.map(\.retries)),
        ]
        parameters += [DeliveryOutcome.sent, .failed, .invalidated, .expired, .withdrawn].map { outcome in
            SQLArray.int(tallies.map { $0.counts[outcome, default: 0] })
        }
        parameters.append(owner)
        // The rows name their chunk by its place (1, 2, …) among the chunks above.
        func place<T>(_ rows: (Tally) -> [T]) -> [Int?] {
            tallies.enumerated().flatMap { index, tally in rows(tally).map { _ in index + 1 } }
        }
        let others = tallies.flatMap(\.others)
        parameters += [
            SQLArray.int(place(\.others)), SQLArray.bigint(others.map(\.deviceID)), SQLArray.text(others.map(\.outcome.rawValue)),
            SQLArray.text(others.map(\.reason)), SQLArray.int(others.map(\.attempts)),
            SQLArray.int(place(\.sent.ids)), SQLArray.bigint(tallies.flatMap(\.sent.ids)), SQLArray.int(tallies.flatMap(\.sent.runs)),
        ]
        let failures = tallies.map { $0.failures.sorted { $0.key < $1.key } }
        parameters += [
            SQLArray.int(failures.enumerated().flatMap { index, reasons in reasons.map { _ in index + 1 } }),
            SQLArray.text(failures.flatMap { $0.map(\.key) }), SQLArray.int(failures.flatMap { $0.map(\.value) }),
            SQLArray.bool(chunks.map { $0.chunk.platform == .android }),
        ]
        let rows = try connection.preparedQuery(OutcomeStatements.writeFirst, parameters)
        return Dictionary(uniqueKeysWithValues: try rows.map { (Int64(try $0.int("id")), try $0.value("state") as MessageState) })
    }

    /// One write that skips the outcomes recorded already; the message's state after it.
    private static func writeMayConflict(_ tally: Tally, owner: String, on connection: PostgresConnection) throws -> MessageState {
        let batch = tally.batch
        let chunk = batch.chunk
        let parameters: [(any PostgresBindable)?] = [
            chunk.messageID, SQLArray.bigint(tally.others.map(\.deviceID)), SQLArray.text(tally.others.map(\.outcome.rawValue)),
            SQLArray.text(tally.others.map(\.reason)), SQLArray.int(tally.others.map(\.attempts)), batch.retries, chunk.appID, chunk.id, owner,
            batch.chunkComplete, SQLArray.bigint(tally.sent.ids), SQLArray.int(tally.sent.runs), chunk.platform == .android,
        ]
        return try connection.preparedQuery(OutcomeStatements.write, parameters).first?.value("state") ?? .done
    }
}
