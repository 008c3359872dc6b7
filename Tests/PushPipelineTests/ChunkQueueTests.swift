import Foundation
import PostgresStore
@testable import PushPipeline
import Testing
import TestSupport

/// The broadcast lane's lease against the database: round-robin over apps, an app whose
/// credential is broken skipped, and each lease one index read, not a sort of the lane.
@Suite(.serialized) struct ChunkQueueTests {
    @Test func broadcastLeasesGoRoundRobinOverAppsByTheIndex() async throws {
        try await TestDatabase.withMigratedPool { pool in
            // Three apps with two chunks each; the third app's credential is broken.
            var apps: [Int64] = []
            for index in 0..<3 {
                let app = Int64(try await pool.query("""
                    INSERT INTO apps (app_key, name, secret_hash) VALUES ($1, 'q', 'h') RETURNING id
                    """, [String(format: "0123456789abcdef012345%02x", index)])[0].int("id"))
                try await pool.query("""
                    WITH message AS (
                        INSERT INTO messages (id, app_id, body, environment, lane, state, accepted_at, expires_at, chunks_pending)
                        VALUES (pushrelay_message_id_at(now()) + $2, $1, '{}', 'production', 'broadcast', 'sending', 0, now() + interval '1 hour', 2)
                        RETURNING id)
                    INSERT INTO push_chunks (message_id, app_id, lane, device_ids)
                    SELECT message.id, $1, 'broadcast', ARRAY[n]::bigint[] FROM message, generate_series(1, 2) n
                    """, [app, index + 1])
                apps.append(app)
            }
            try await pool.query("""
                INSERT INTO apns_credentials (app_id, auth, topic, key_id, team_id, sealed_secret, broken_at, broken_reason)
                VALUES ($1, 'token', 't', 'K', 'T', '\\x00'::bytea, now(), 'InvalidProviderToken')
                """, [apps[2]])
            let queue = ChunkQueue(pool: pool, owner: "me", leaseSeconds: 30)
            var leasedApps: [Int64] = []
            var after: Int64 = 0
            while let chunk = try await queue.lease(.broadcast, afterApp: after) {
                leasedApps.append(chunk.appID)
                after = chunk.appID
            }
            #expect(leasedApps == [apps[0], apps[1], apps[0], apps[1]], "round-robin, the broken app skipped")

            try await pool.query("UPDATE push_chunks SET state = 'ready', lease_owner = NULL")
            // The plan a prepared statement settles on once it goes generic, as the pool's do.
            let plan = try await pool.withConnection { connection in
                try connection.query("PREPARE lease_plan(text, float8, bigint) AS " + ChunkQueue.leaseSQL(.broadcast))
                try connection.query("SET plan_cache_mode = force_generic_plan")
                defer {
                    _ = try? connection.query("RESET plan_cache_mode")
                    _ = try? connection.query("DEALLOCATE lease_plan")
                }
                return try connection.query("EXPLAIN EXECUTE lease_plan('me', 30, 0)").map { try $0.string("QUERY PLAN") }.joined(separator: "\n")
            }
            #expect(plan.contains("push_chunks_ready_broadcast"), "\(plan)")
            #expect(!plan.contains("Sort"), "\(plan)")
        }
    }
}
