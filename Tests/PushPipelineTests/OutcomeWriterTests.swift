import Foundation
import PostgresStore
@testable import PushPipeline
import Testing
import TestSupport

/// The outcome write against the database, without a worker: what it counts when rows exist.
@Suite(.serialized) struct OutcomeWriterTests {
    /// A first-lease write made again after its success was lost with its connection (the
    /// holder did not count it) skips what the first one recorded: the outcomes, spans and
    /// counters stay exact and the chunk and message finish.
    @Test func aFirstLeaseWriteMeetingAnExistingRowSkipsIt() async throws {
        try await TestDatabase.withMigratedPool { try await check($0) }
    }

    /// A message of one chunk of `devices` new devices, leased by "me" for the first time.
    private func leasedChunk(devices: Int, pool: PostgresPool) async throws -> (LeasedChunk, [Int64]) {
        let messageID = try await pool.query("""
            WITH app AS (INSERT INTO apps (app_key, name, secret_hash) VALUES ('0123456789abcdef01234567', 'w', 'h') RETURNING id),
                 device AS (INSERT INTO devices (app_id, token, environment)
                            SELECT app.id, lpad(to_hex(i), 64, '0'), 'production' FROM app, generate_series(1, $1::integer) i RETURNING id, app_id),
                 message AS (INSERT INTO messages (id, app_id, body, environment, lane, state, accepted_at, expires_at, chunks_pending)
                             SELECT pushrelay_message_id_at(now()) + 1, id, '{}', 'production', 'broadcast', 'sending', 0,
                                    now() + interval '1 hour', 1 FROM app RETURNING id)
            INSERT INTO push_chunks (message_id, app_id, lane, device_ids, state, lease_owner, leases)
            SELECT message.id, (SELECT id FROM app), 'broadcast', (SELECT array_agg(id ORDER BY id) FROM device), 'leased', 'me', 1
            FROM message RETURNING message_id, id, app_id, device_ids AS ids
            """, [devices]).first!
        let ids = try messageID.bigints("ids")
        let chunk = LeasedChunk(id: Int64(try messageID.int("id")), messageID: Int64(try messageID.int("message_id")),
                                appID: Int64(try messageID.int("app_id")), lane: .broadcast, leases: 1)
        return (chunk, ids)
    }

    /// A first lease's write counts its batch without reading rows back: the counters, the
    /// failures by reason and the rollups say exactly what the batch held.
    @Test func aFirstLeaseWriteCountsItsBatch() async throws {
        try await TestDatabase.withMigratedPool { pool in
            let (chunk, ids) = try await leasedChunk(devices: 5, pool: pool)
            let outcomes = [
                ChunkRun.Outcome(deviceID: ids[0], outcome: .sent, reason: nil, attempts: 1),
                ChunkRun.Outcome(deviceID: ids[1], outcome: .failed, reason: "BadTopic", attempts: 1),
                ChunkRun.Outcome(deviceID: ids[2], outcome: .failed, reason: "BadTopic", attempts: 2),
                ChunkRun.Outcome(deviceID: ids[3], outcome: .expired, reason: "Expired", attempts: 3),
                ChunkRun.Outcome(deviceID: ids[4], outcome: .withdrawn, reason: "Withdrawn", attempts: 0),
            ]
            let written = try await OutcomeWriter(pool: pool, owner: "me").write(chunk, outcomes: outcomes, retries: 4, sentAt: Date(),
                                                                                 chunkComplete: true)
            #expect(written.messageState == .done)
            let message = try await pool.query("""
                SELECT sent_count, failed_count, invalidated_count, expired_count, retry_count FROM messages WHERE id = $1
                """, [chunk.messageID])[0]
            #expect(try [message.int("sent_count"), message.int("failed_count"), message.int("invalidated_count"),
                         message.int("expired_count"), message.int("retry_count")] == [1, 2, 0, 1, 4])
            let failures = try await pool.query("SELECT reason, count FROM message_failures WHERE message_id = $1 ORDER BY reason",
                                                [chunk.messageID]).map { "\(try $0.string("reason"))=\(try $0.int("count"))" }
            #expect(failures == ["BadTopic=2", "Expired=1"])
            let stats = try await pool.query("SELECT sent, failed, invalidated, expired, withdrawn, retries FROM delivery_stats WHERE app_id = $1",
                                             [chunk.appID])[0]
            #expect(try ["sent", "failed", "invalidated", "expired", "withdrawn", "retries"].map { try stats.int($0) } == [1, 2, 0, 1, 1, 4])
            let failureStats = try await pool.query("SELECT reason, count FROM delivery_failure_stats WHERE app_id = $1 ORDER BY reason",
                                                    [chunk.appID]).map { "\(try $0.string("reason"))=\(try $0.int("count"))" }
            #expect(failureStats == ["BadTopic=2", "Expired=1"])
        }
    }

    /// Concurrent writes of many chunks, of several messages (one of two chunks), share
    /// transactions and statements: each is answered with its message's state and its own
    /// counts, and the counters, failures and rollups add up exactly.
    @Test func concurrentWritesOfManyChunksCountExactly() async throws {
        try await TestDatabase.withMigratedPool { pool in
            // 12 messages of one chunk of 3 devices, and a 13th of two such chunks.
            let rows = try await pool.query("""
                WITH app AS (INSERT INTO apps (app_key, name, secret_hash) VALUES ('0123456789abcdef01234568', 'w', 'h') RETURNING id),
                     device AS (INSERT INTO devices (app_id, token, environment)
                                SELECT app.id, lpad(to_hex(i), 64, '0'), 'production' FROM app, generate_series(1, 42) i RETURNING id, app_id),
                     numbered AS (SELECT id, (row_number() OVER (ORDER BY id) - 1) / 3 AS chunk FROM device),
                     message AS (INSERT INTO messages (id, app_id, body, environment, lane, state, accepted_at, expires_at, chunks_pending)
                                 SELECT pushrelay_message_id_at(now()) + m, app.id, '{}', 'production', 'targeted', 'sending', 0,
                                        now() + interval '1 hour', CASE WHEN m = 12 THEN 2 ELSE 1 END
                                 FROM app, generate_series(0, 12) m RETURNING id, id - pushrelay_message_id_at(now()) AS m)
                INSERT INTO push_chunks (message_id, app_id, lane, device_ids, state, lease_owner, leases)
                SELECT message.id, (SELECT id FROM app), 'targeted', (SELECT array_agg(n.id ORDER BY n.id) FROM numbered n WHERE n.chunk = c),
                       'leased', 'me', 1
                FROM message JOIN generate_series(0, 13) c ON least(c, 12) = message.m
                RETURNING message_id, id, app_id, device_ids AS ids
                """)
            let chunks = try rows.map { row in
                (LeasedChunk(id: Int64(try row.int("id")), messageID: Int64(try row.int("message_id")), appID: Int64(try row.int("app_id")),
                             lane: .targeted, leases: 1), try row.bigints("ids"))
            }
            #expect(chunks.count == 14)
            let writer = OutcomeWriter(pool: pool, owner: "me")
            // Each chunk: its first device sent, its second failed (BadTopic), its third expired.
            let answers = try await withThrowingTaskGroup(of: (Int64, OutcomeWriter.Written).self) { tasks in
                for (chunk, ids) in chunks {
                    tasks.addTask {
                        let outcomes = [
                            ChunkRun.Outcome(deviceID: ids[0], outcome: .sent, reason: nil, attempts: 1),
                            ChunkRun.Outcome(deviceID: ids[1], outcome: .failed, reason: "BadTopic", attempts: 1),
                            ChunkRun.Outcome(deviceID: ids[2], outcome: .expired, reason: "Expired", attempts: 2),
                        ]
                        return (chunk.id, try await writer.write(chunk, outcomes: outcomes, retries: 1, sentAt: Date(), chunkComplete: true))
                    }
                }
                return try await tasks.reduce(into: [Int64: OutcomeWriter.Written]()) { $0[$1.0] = $1.1 }
            }
            #expect(answers.count == 14)
            for written in answers.values { #expect(written.counts == [.sent: 1, .failed: 1, .expired: 1]) }
            let messages = try await pool.query("""
                SELECT count(*) FILTER (WHERE state = 'done' AND chunks_pending = 0) AS done, sum(sent_count) AS sent,
                       sum(failed_count) AS failed, sum(expired_count) AS expired, sum(retry_count) AS retries,
                       max(sent_count) AS most
                FROM messages
                """)[0]
            #expect(try ["done", "sent", "failed", "expired", "retries", "most"].map { try messages.int($0) } == [13, 14, 14, 14, 14, 2])
            let stats = try await pool.query("SELECT sum(sent) AS sent, sum(failed) AS failed, sum(expired) AS expired, sum(retries) AS retries FROM delivery_stats")[0]
            #expect(try ["sent", "failed", "expired", "retries"].map { try stats.int($0) } == [14, 14, 14, 14])
            let failures = try await pool.query("SELECT reason, sum(count) AS n FROM delivery_failure_stats GROUP BY reason ORDER BY reason")
                .map { "\(try $0.string("reason"))=\(try $0.int("n"))" }
            #expect(failures == ["BadTopic=14", "Expired=14"])
            let perMessage = try await pool.query("SELECT max(count) AS most, count(*) AS n FROM message_failures")[0]
            #expect(try perMessage.int("most") == 2 && perMessage.int("n") == 26)
            #expect(try await pool.query("SELECT count(*) AS n FROM push_chunks WHERE state = 'done' AND writes = 1")[0].int("n") == 14)
            // One transaction at a time (a pool of two): the writes that came meanwhile shared one.
            let spans = try await pool.query("SELECT count(*) AS n, count(DISTINCT xmin::text) AS commits FROM delivery_spans")[0]
            #expect(try spans.int("n") == 14 && spans.int("commits") < 14)
        }
    }

    private func check(_ pool: PostgresPool) async throws {
        let (chunk, ids) = try await leasedChunk(devices: 4, pool: pool)
        let writer = OutcomeWriter(pool: pool, owner: "me")
        let sent = ids.map { ChunkRun.Outcome(deviceID: $0, outcome: .sent, reason: nil, attempts: 1) }
        let refused = ChunkRun.Outcome(deviceID: ids[3], outcome: .failed, reason: "BadTopic", attempts: 1)
        _ = try await writer.write(chunk, outcomes: [sent[0], refused], retries: 0, sentAt: Date(), chunkComplete: false)

        // The same write again, with the rest of the chunk, from a holder that saw no write succeed.
        let written = try await writer.write(chunk, outcomes: sent.prefix(3) + [refused], retries: 0, sentAt: Date(), chunkComplete: true)

        #expect(written.messageState == .done)
        let message = try await pool.query("SELECT sent_count, failed_count, chunks_pending FROM messages WHERE id = $1",
                                           [chunk.messageID]).first!
        #expect(try message.int("sent_count") == 3 && message.int("failed_count") == 1, "the recorded outcomes are not counted again")
        #expect(try message.int("chunks_pending") == 0)
        let rows = try await pool.query("SELECT device_id FROM deliveries WHERE message_id = $1", [chunk.messageID])
        #expect(try rows.map { Int64(try $0.int("device_id")) } == [ids[3]])
        #expect(try await pool.query("SELECT state FROM push_chunks WHERE id = $1", [chunk.id]).first?["state"] == "done")
        let spans = try await pool.query("SELECT lo, hi, device_ids::text AS ids FROM delivery_spans WHERE message_id = $1 ORDER BY lo",
                                         [chunk.messageID])
            .map { "\(try $0.int("lo"))-\(try $0.int("hi")) \(try $0.string("ids"))" }
        #expect(spans == ["\(ids[0])-\(ids[0]) {\(ids[0])}", "\(ids[1])-\(ids[2]) {\(ids[1]),\(ids[2])}"],
                "one span of the first write, one of what the second added")
        let failures = try await pool.query("SELECT count FROM message_failures WHERE message_id = $1", [chunk.messageID])
        #expect(try failures.map { try $0.int("count") } == [1])
    }
}
