import Foundation
import PostgresStore
import PushCore
@testable import PushPipeline
import RelayCore
import Testing
import TestSupport

/// Accepting a push is one statement: what it leaves in the database, without a worker.
@Suite(.serialized) struct MessageStoreTests {
    private func push(_ json: String) throws -> (PushRequest, [UInt8]) {
        let body = Array(json.utf8)
        return (try PushRequest.parse(body), body)
    }

    @Test func aTargetedPushIsCutIntoChunksUpToTheInlineLimitAndTheRestLeftToResolvers() async throws {
        try await TestDatabase.withMigratedPool { pool in
            let app = Int64(try await pool.query("""
                INSERT INTO apps (app_key, name, secret_hash) VALUES ('0123456789abcdef0123456a', 'm', 'h') RETURNING id
                """)[0].int("id"))
            let ids = try await pool.query("""
                INSERT INTO devices (app_id, token, environment, alias)
                SELECT $1, lpad(to_hex(i), 64, '0'), 'production', CASE WHEN i <= 7 THEN 'many' ELSE 'few' END
                FROM generate_series(1, 9) i RETURNING id
                """, [app]).map { Int64(try $0.int("id")) }.sorted()
            let store = MessageStore(pool: pool, chunkSize: 2, inlineLimit: 5)

            // Seven devices, five cut now in chunks of two; the resolvers go on from the fifth.
            let (many, body) = try push(#"{"platform":"ios","audience":{"alias":["many"]},"notification":{"alert":"a"},"options":{"apns_production":true}}"#)
            let accepted = try await store.accept(appID: app, request: many, body: body)
            #expect(accepted.isNew)
            let message = try await pool.query("""
                SELECT state, lane, target_count, chunks_pending, resolve_cursor, environment FROM messages WHERE id = $1
                """, [accepted.msgID.rawValue])[0]
            #expect(message["state"] == "resolving" && message["lane"] == "targeted" && message["environment"] == "production")
            #expect(try message.int("target_count") == 5 && message.int("chunks_pending") == 3)
            #expect(Int64(try message.int("resolve_cursor")) == ids[4])
            let chunks = try await pool.query("SELECT device_ids::text AS ids FROM push_chunks WHERE message_id = $1 ORDER BY id",
                                              [accepted.msgID.rawValue]).map { try $0.string("ids") }
            #expect(chunks == ["{\(ids[0]),\(ids[1])}", "{\(ids[2]),\(ids[3])}", "{\(ids[4])}"])

            // Two devices: every chunk made now, the message sending.
            let (few, fewBody) = try push(#"{"platform":"ios","audience":{"alias":["few"]},"notification":{"alert":"b"},"cid":"c-1"}"#)
            let small = try await store.accept(appID: app, request: few, body: fewBody)
            let row = try await pool.query("SELECT state, target_count, chunks_pending, environment FROM messages WHERE id = $1",
                                           [small.msgID.rawValue])[0]
            #expect(row["state"] == "sending" && row["environment"] == "production", "apns_production is true by default")
            #expect(try row.int("target_count") == 2 && row.int("chunks_pending") == 1)
            // The same cid again: the first answer, nothing new stored.
            let again = try await store.accept(appID: app, request: few, body: fewBody)
            #expect(again.msgID == small.msgID && !again.isNew)
            #expect(try await pool.query("SELECT count(*) AS n FROM messages")[0].int("n") == 2)

            // Nobody: 1011 with a msg_id, nothing stored.
            let (nobody, nobodyBody) = try push(#"{"platform":"ios","audience":{"alias":["nobody"]},"notification":{"alert":"c"}}"#)
            await #expect(throws: JPushError.self) { try await store.accept(appID: app, request: nobody, body: nobodyBody) }
            let (everyone, everyoneBody) = try push(#"{"platform":"ios","audience":"all","notification":{"alert":"d"},"options":{"apns_production":true}}"#)
            let broadcast = try await store.accept(appID: app, request: everyone, body: everyoneBody)
            #expect(try await pool.query("SELECT state FROM messages WHERE id = $1", [broadcast.msgID.rawValue])[0]["state"] == "resolving")
            // No iOS: accepted, and done at once.
            let (android, androidBody) = try push(#"{"platform":"android","audience":"all","notification":{"alert":"e"}}"#)
            let other = try await store.accept(appID: app, request: android, body: androidBody)
            #expect(try await pool.query("SELECT state FROM messages WHERE id = $1", [other.msgID.rawValue])[0]["state"] == "done")
            #expect(try await pool.query("SELECT count(*) AS n FROM messages")[0].int("n") == 4)
        }
    }

    /// The override's look-up of the overridden message's collapse id reads one row through
    /// an index on its id (and app), however many messages are stored.
    @Test func theOverriddenMessageIsReadByItsPrimaryKey() async throws {
        try await TestDatabase.withMigratedPool { pool in
            let plan = try await pool.withConnection { connection in
                try connection.query("PREPARE overridden_plan(bigint, bigint) AS " + AudienceStatements.overridden.text)
                try connection.query("SET plan_cache_mode = force_generic_plan")
                defer {
                    _ = try? connection.query("RESET plan_cache_mode")
                    _ = try? connection.query("DEALLOCATE overridden_plan")
                }
                return try connection.query("EXPLAIN EXECUTE overridden_plan(1, 1)").map { try $0.string("QUERY PLAN") }.joined(separator: "\n")
            }
            #expect(plan.contains("Index Scan") && plan.contains("id = $1") && !plan.contains("Seq Scan"), "\(plan)")
        }
    }
}
