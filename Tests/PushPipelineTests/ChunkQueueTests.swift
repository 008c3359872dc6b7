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
                INSERT INTO apns_credentials (app_id, environment, auth, topic, key_id, team_id, sealed_secret, broken_at, broken_reason)
                VALUES ($1, 'production', 'token', 't', 'K', 'T', '\\x00'::bytea, now(), 'InvalidProviderToken')
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
                try connection.query("PREPARE lease_plan(text, float8, bigint) AS " + LeaseStatements.lease(.broadcast).text)
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

/// Credentials per environment: a broken one holds back the chunks of its environment's
/// messages only, in both lanes; the leases find the credential by its primary key.
@Suite(.serialized) struct EnvironmentLeaseTests {
    @Test func aBrokenCredentialHoldsBackOnlyItsEnvironmentsChunks() async throws {
        try await TestDatabase.withMigratedPool { pool in
            let app = Int64(try await pool.query("""
                INSERT INTO apps (app_key, name, secret_hash) VALUES ('0123456789abcdef0123456e', 'e', 'h') RETURNING id
                """)[0].int("id"))
            // A message and a chunk per lane and environment.
            var production: Set<Int64> = []
            for (index, (lane, environment)) in [("targeted", "sandbox"), ("targeted", "production"), ("broadcast", "sandbox"),
                                                 ("broadcast", "production")].enumerated() {
                let message = Int64(try await pool.query("""
                    WITH message AS (
                        INSERT INTO messages (id, app_id, body, environment, lane, state, accepted_at, expires_at, chunks_pending)
                        VALUES (pushrelay_message_id_at(now()) + $2, $1, '{}', $3, $4, 'sending', 0, now() + interval '1 hour', 1)
                        RETURNING id)
                    INSERT INTO push_chunks (message_id, app_id, lane, device_ids)
                    SELECT message.id, $1, $4, ARRAY[1]::bigint[] FROM message RETURNING message_id
                    """, [app, index + 1, environment, lane])[0].int("message_id"))
                if environment == "production" { production.insert(message) }
            }
            try await pool.query("""
                INSERT INTO apns_credentials (app_id, environment, auth, topic, key_id, team_id, sealed_secret, broken_at, broken_reason)
                VALUES ($1, 'sandbox', 'token', 't', 'K', 'T', '\\x00'::bytea, now(), 'InvalidProviderToken'),
                       ($1, 'production', 'token', 't', 'K', 'T', '\\x00'::bytea, NULL, NULL)
                """, [app])
            let queue = ChunkQueue(pool: pool, owner: "me", leaseSeconds: 30)
            var leased: Set<Int64> = []
            while let chunk = try await queue.lease(.targeted, afterApp: 0) { leased.insert(chunk.messageID) }
            while let chunk = try await queue.lease(.broadcast, afterApp: 0) { leased.insert(chunk.messageID) }
            #expect(leased == production, "the production messages' chunks, not the sandbox's")

            // A new sandbox credential (no longer broken) lets the sandbox's go.
            try await pool.query("UPDATE apns_credentials SET broken_at = NULL WHERE app_id = $1", [app])
            #expect(try await queue.lease(.targeted, afterApp: 0) != nil)
            #expect(try await queue.lease(.broadcast, afterApp: 0) != nil)

            // With sequential scans off (a missing index shows as one), the plans prepared
            // statements settle on find the chunk by the lane's index and the credential by its key.
            try await pool.query("UPDATE push_chunks SET state = 'ready', lease_owner = NULL")
            for (lane, arguments) in [(Lane.targeted, "('me', 30)"), (.broadcast, "('me', 30, 0)")] {
                let plan = try await pool.withConnection { connection in
                    try connection.transaction { connection in
                        try connection.query("SET LOCAL enable_seqscan = off")
                        try connection.query("SET LOCAL plan_cache_mode = force_generic_plan")
                        try connection.query("PREPARE lease_plan AS " + LeaseStatements.lease(lane).text)
                        defer { _ = try? connection.query("DEALLOCATE lease_plan") }
                        return try connection.query("EXPLAIN EXECUTE lease_plan\(arguments)").map { try $0.string("QUERY PLAN") }
                            .joined(separator: "\n")
                    }
                }
                #expect(plan.contains(lane == .targeted ? "push_chunks_ready" : "push_chunks_ready_broadcast"), "\(plan)")
                #expect(plan.contains("apns_credentials_pkey"), "\(plan)")
                #expect(!plan.contains("Seq Scan") && !plan.contains("Sort"), "\(plan)")
            }
            // Reading a chunk's message with its environment's credential, alone or in the
            // targeted lease's statement: the credential by its key.
            for (name, sql) in [("context", LeaseStatements.chunkContext.text), ("targeted lease", LeaseStatements.lease(.targeted).text)] {
                let plan = try await pool.withConnection { connection in
                    try connection.transaction { connection in
                        try connection.query("SET LOCAL enable_seqscan = off")
                        try connection.query("SET LOCAL plan_cache_mode = force_generic_plan")
                        try connection.query("PREPARE read_plan AS " + sql)
                        defer { _ = try? connection.query("DEALLOCATE read_plan") }
                        return try connection.query(name == "context" ? "EXPLAIN EXECUTE read_plan(1, 'ios')" : "EXPLAIN EXECUTE read_plan('me', 30)")
                            .map { try $0.string("QUERY PLAN") }.joined(separator: "\n")
                    }
                }
                #expect(plan.contains("Index Scan using apns_credentials_pkey"), "\(name): \(plan)")
                #expect(!plan.contains("Seq Scan"), "\(name): \(plan)")
            }
            // Marking one environment's credential broken: by its key, and only that row.
            let plan = try await pool.query("EXPLAIN " + LeaseStatements.markCredentialBroken.text, [app, "sandbox", "x", "r"])
                .map { try $0.string("QUERY PLAN") }.joined(separator: "\n")
            #expect(plan.contains("apns_credentials_pkey"), "\(plan)")
            let version = try await pool.query("SELECT updated_at::text AS v FROM apns_credentials WHERE app_id = $1 AND environment = 'sandbox'",
                                               [app])[0].string("v")
            try await pool.query(LeaseStatements.markCredentialBroken.text, [app, "sandbox", version, "BadCertificate"])
            let states = try await pool.query("SELECT environment, broken_reason FROM apns_credentials WHERE app_id = $1 ORDER BY environment", [app])
            #expect(states.map { [$0["environment"], $0["broken_reason"]] } == [["production", nil], ["sandbox", "BadCertificate"]])
        }
    }
}
