import Foundation
import PostgresStore
import PushCore
@testable import PushPipeline
import Testing
import TestSupport

/// On a node that accepts and sends, a targeted push of one chunk is leased to the local
/// worker by the statement that accepts it, and sent without a NOTIFY or a lease between.
@Suite(.serialized) struct LocalHandoffTests {
    @Test func aOneChunkPushIsLeasedToTheLocalWorkerAsItIsAccepted() async throws {
        // One targeted slot: a slot not given back would stop the next hand-off.
        let relay = try await PipelineHarness.start(tune: { $0.targetedSlots = 1 }, worker: false)
        // The worker's leasing loops never run: only the hand-off sends.
        let worker = PushWorker(pool: relay.pool, connectionString: relay.databaseURL, secretBox: relay.secretBox,
                                configuration: relay.pipeline, logger: TestDatabase.quietLogger)
        let store = MessageStore(pool: relay.pool, chunkSize: 2, handoffs: worker)
        do {
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 4, prefix: "c1")
            try await relay.pool.query("""
                UPDATE devices SET alias = CASE WHEN token = $2 THEN 'one' ELSE 'three' END WHERE app_id = $1
                """, [app.id, tokens[0]])
            func accept(_ alias: String) async throws -> Int64 {
                let body = Array(#"{"platform":"ios","audience":{"alias":["\#(alias)"]},"notification":{"alert":"\#(alias)"}}"#.utf8)
                return try await store.accept(appID: app.id, request: try PushRequest.parse(body), body: body).msgID.rawValue
            }
            func chunks(_ id: Int64) async throws -> [String] {
                try await relay.pool.query("SELECT state FROM push_chunks WHERE message_id = $1 ORDER BY id", [id]).map { try $0.string("state") }
            }

            // Leased as it was stored, then sent by the worker.
            let one = try await accept("one")
            #expect(try await chunks(one).allSatisfy { $0 == "leased" || $0 == "done" })
            let message = try await relay.waitUntilFinished(one)
            #expect(try message.int("sent_count") == 1)
            #expect(relay.simulator.deliveries(token: tokens[0]).map(\.msgID) == [one])
            #expect(try await relay.pool.query("SELECT leases FROM push_chunks WHERE message_id = $1", [one])[0].int("leases") == 1)

            // Three devices make two chunks: left ready for the leasing loops; the slot comes back.
            let three = try await accept("three")
            #expect(try await chunks(three) == ["ready", "ready"])
            let again = try await accept("one")
            #expect(try await chunks(again).allSatisfy { $0 == "leased" || $0 == "done" })
            try await relay.waitUntilFinished(again)

            // A broken credential: the chunk waits with the app's others, as a lease would leave it.
            try await relay.pool.query("UPDATE apns_credentials SET broken_at = now() WHERE app_id = $1", [app.id])
            let paused = try await accept("one")
            #expect(try await chunks(paused) == ["ready"])
            try await relay.pool.query("UPDATE apns_credentials SET broken_at = NULL WHERE app_id = $1", [app.id])
            let last = try await accept("one")
            try await relay.waitUntilFinished(last)
            // The last of three notifications to the device, as the simulator keeps them.
            #expect(relay.simulator.deliveries(token: tokens[0]).map { [$0.msgID, Int64($0.count)] } == [[last, 3]])
        } catch {
            worker.stop()
            await worker.run()
            await relay.stop()
            throw error
        }
        worker.stop()
        await worker.run()
        await relay.stop()
    }
}
