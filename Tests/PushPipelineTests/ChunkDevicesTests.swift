import Foundation
import PostgresStore
@testable import PushPipeline
import Testing
import TestSupport

/// Reading a chunk's devices: a dense chunk is read as one range of the app's primary key, a
/// sparse one by a probe per id; both must give every id of the chunk exactly once, and
/// nothing else in the range; a re-leased chunk only the ids without an outcome.
@Suite(.serialized) struct ChunkDevicesTests {
    @Test func denseAndSparseChunksReadExactlyTheirDevices() async throws {
        try await TestDatabase.withMigratedPool { try await check($0) }
    }

    private func check(_ pool: PostgresPool) async throws {
        let apps = try await pool.query("""
            INSERT INTO apps (app_key, name, secret_hash) VALUES ('0123456789abcdef01234567', 'a', 'h'), ('0123456789abcdef01234568', 'b', 'h')
            RETURNING id
            """).map { Int64(try $0.int("id")) }
        let (app, other) = (apps[0], apps[1])
        // Twelve devices of the app, one of the other app in the middle of their ids.
        var ids: [Int64] = []
        for index in 0..<13 {
            let owner = index == 6 ? other : app
            let row = try await pool.query("INSERT INTO devices (app_id, token, environment) VALUES ($1, lpad(to_hex($2::integer), 64, '0'), 'production') RETURNING id",
                                           [owner, index + 1]).first!
            ids.append(Int64(try row.int("id")))
        }
        let mine = ids.enumerated().filter { $0.offset != 6 }.map(\.element)
        try await pool.query("UPDATE devices SET active = false, invalidated_at = now(), invalidation_reason = 'Unregistered' WHERE id = $1", [mine[2]])
        try await pool.query("UPDATE devices SET environment = 'sandbox' WHERE id = $1", [mine[3]])
        let message = try await pool.query("""
            INSERT INTO messages (id, app_id, body, environment, lane, state, accepted_at, expires_at, chunks_pending)
            VALUES (pushrelay_message_id_at(now()) + 7, $1, '{}', 'production', 'broadcast', 'sending', 0, now() + interval '1 hour', 2)
            RETURNING id
            """, [app]).first!
        let messageID = Int64(try message.int("id"))

        // Dense: the app's first ten devices but mine[5] (in the range, not in the chunk), one of
        // them deleted since, and the other app's device inside the range.
        let dense = Array(mine[0..<10]).filter { $0 != mine[5] }
        try await pool.query("DELETE FROM devices WHERE id = $1", [mine[4]])
        // Sparse (its ids span more than twice their number): an id nobody has among them.
        let sparse = [mine[0], mine[10] + 5000, mine[11]]

        for (ids, isDense, expectedTargets, expectedUnsendable) in [
            (dense, true, Set(dense).subtracting([mine[2], mine[3], mine[4]]),
             [mine[2]: "TokenInactive", mine[3]: "EnvironmentChanged", mine[4]: "DeviceDeleted"]),
            (sparse, false, Set([mine[0], mine[11]]), [mine[10] + 5000: "DeviceDeleted"]),
        ] {
            let chunk = try await pool.query("""
                INSERT INTO push_chunks (message_id, app_id, lane, device_ids, state, lease_owner, leases)
                VALUES ($1, $2, 'broadcast', $3::bigint[], 'leased', 'me', 1)
                RETURNING id, device_ids[cardinality(device_ids)] - device_ids[1] < 2 * cardinality(device_ids) AS dense
                """, [messageID, app, SQLArray.bigint(ids.sorted())]).first!
            #expect(try chunk.bool("dense") == isDense)
            let leased = LeasedChunk(id: Int64(try chunk.int("id")), messageID: messageID, appID: app, lane: .broadcast, leases: 1)
            let read = try await pool.withConnection { connection in
                try LoadedChunk.devices(of: leased, environment: "production", on: connection)
            }
            #expect(Set(read.targets.map(\.deviceID)) == expectedTargets)
            #expect(read.targets.count == expectedTargets.count)
            #expect(Dictionary(uniqueKeysWithValues: read.unsendable.map { ($0.deviceID, $0.reason ?? "") }) == expectedUnsendable)
            #expect(read.targets.allSatisfy { $0.token.count == 64 })
            guard isDense else { continue }

            // Leased again (a worker died with it): the devices with an outcome are left out.
            let sent = mine[0], failed = mine[1]
            try await pool.query("UPDATE push_chunks SET leases = 2 WHERE id = $1", [leased.id])
            try await pool.query("INSERT INTO delivery_spans (message_id, app_id, lo, hi, device_ids) VALUES ($1, $2, $3, $3, ARRAY[$3::bigint])",
                                 [messageID, app, sent])
            try await pool.query("INSERT INTO deliveries (message_id, device_id, outcome, reason) VALUES ($1, $2, 'failed', 'BadDeviceToken')",
                                 [messageID, failed])
            let again = LeasedChunk(id: leased.id, messageID: messageID, appID: app, lane: .broadcast, leases: 2)
            let rest = try await pool.withConnection { connection in
                try LoadedChunk.devices(of: again, environment: "production", on: connection)
            }
            #expect(Set(rest.targets.map(\.deviceID)) == expectedTargets.subtracting([sent, failed]))
            #expect(Dictionary(uniqueKeysWithValues: rest.unsendable.map { ($0.deviceID, $0.reason ?? "") }) == expectedUnsendable)
        }
    }

    /// A targeted chunk is leased and read in one statement: the chunk, its message, the
    /// app's credential, and its devices (on a re-lease only those without an outcome).
    @Test func aTargetedLeaseReadsTheChunkInTheSameStatement() async throws {
        try await TestDatabase.withMigratedPool { pool in
            let none = try await pool.withConnection { try LoadedChunk.leaseTargeted(owner: "me", leaseSeconds: 30, on: $0) }
            #expect(none == nil, "nothing ready: nothing leased")
            let setup = try await pool.query("""
                WITH app AS (INSERT INTO apps (app_key, name, secret_hash) VALUES ('0123456789abcdef01234569', 't', 'h') RETURNING id),
                     credential AS (INSERT INTO apns_credentials (app_id, environment, auth, topic, key_id, team_id, sealed_secret)
                                    SELECT id, 'production', 'token', 'com.example.app', 'KEY1234567', 'TEAM123456', '\\x0102'::bytea FROM app),
                     device AS (INSERT INTO devices (app_id, token, environment)
                                SELECT app.id, lpad(to_hex(i), 64, '0'), 'production' FROM app, generate_series(1, 3) i RETURNING id, app_id),
                     message AS (INSERT INTO messages (id, app_id, body, environment, lane, state, accepted_at, expires_at, chunks_pending)
                                 SELECT pushrelay_message_id_at(now()) + 9, id, '{"x":1}', 'production', 'targeted', 'sending', 5,
                                        now() + interval '1 hour', 1 FROM app RETURNING id)
                INSERT INTO push_chunks (message_id, app_id, lane, device_ids, leases)
                SELECT message.id, (SELECT id FROM app), 'targeted', (SELECT array_agg(id ORDER BY id) || 999999999::bigint FROM device), 1
                FROM message RETURNING id, message_id, app_id, device_ids AS ids
                """).first!
            let ids = try setup.bigints("ids")
            // The chunk was leased once before: its first device was sent to, its second refused.
            try await pool.query("INSERT INTO delivery_spans (message_id, app_id, lo, hi, device_ids) VALUES ($1, $2, $3, $3, ARRAY[$3::bigint])",
                                 [Int64(try setup.int("message_id")), Int64(try setup.int("app_id")), ids[0]])
            try await pool.query("INSERT INTO deliveries (message_id, device_id, outcome, reason) VALUES ($1, $2, 'failed', 'BadDeviceToken')",
                                 [Int64(try setup.int("message_id")), ids[1]])

            let leased = try await pool.withConnection { try LoadedChunk.leaseTargeted(owner: "me", leaseSeconds: 30, on: $0) }
            let (chunk, loaded) = try #require(leased)
            let (chunkID, messageID, appID) = (Int64(try setup.int("id")), Int64(try setup.int("message_id")), Int64(try setup.int("app_id")))
            #expect(chunk.id == chunkID && chunk.messageID == messageID && chunk.appID == appID)
            #expect(chunk.lane == .targeted && chunk.leases == 2)
            #expect(loaded.messageState == .sending && loaded.body == #"{"x":1}"# && loaded.environment == "production")
            #expect(loaded.acceptedAt == 5)
            guard case .apns(let credential)? = loaded.credential else { throw HarnessError("an APNs credential, got \(String(describing: loaded.credential))") }
            #expect(credential.topic == "com.example.app" && !credential.isBroken)
            #expect(credential.sealedSecret == [1, 2])
            #expect(loaded.targets.map(\.deviceID) == [ids[2]], "the devices with an outcome are not read again")
            #expect(loaded.unsendable.map(\.deviceID) == [999_999_999] && loaded.unsendable.first?.reason == "DeviceDeleted")
            let row = try await pool.query("SELECT state, lease_owner FROM push_chunks WHERE id = $1", [chunk.id]).first!
            #expect(row["state"] == "leased" && row["lease_owner"] == "me")
            let again = try await pool.withConnection { try LoadedChunk.leaseTargeted(owner: "me", leaseSeconds: 30, on: $0) }
            #expect(again == nil, "a leased chunk is not leased twice")
        }
    }
}
