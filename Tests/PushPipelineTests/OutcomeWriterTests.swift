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
