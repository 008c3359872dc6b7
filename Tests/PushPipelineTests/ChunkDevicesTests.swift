import Foundation
import PostgresStore
@testable import PushPipeline
import Testing
import TestSupport

/// Reading a chunk's devices: a dense chunk is read as one range of the app's primary key, a
/// sparse one by a probe per id; both must give every id of the chunk exactly once, and
/// nothing else in the range.
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
                try ChunkSender.devices(of: leased, environment: "production", on: connection)
            }
            #expect(Set(read.targets.map(\.deviceID)) == expectedTargets)
            #expect(read.targets.count == expectedTargets.count)
            #expect(Dictionary(uniqueKeysWithValues: read.unsendable.map { ($0.deviceID, $0.reason ?? "") }) == expectedUnsendable)
            #expect(read.targets.allSatisfy { $0.token.count == 64 })
        }
    }
}
