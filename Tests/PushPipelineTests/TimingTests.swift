import APNSSimulator
import Foundation
import PostgresStore
import Testing

/// Time in the pipeline: expiration stops retries, big_push_duration spreads a broadcast.
@Suite(.serialized) struct TimingTests {
    @Test func retriesStopAtTheMessagesExpiration() async throws {
        // The backoffs in the slot take no time; only a return to the queue waits on the database.
        try await PipelineHarness.with(simulate: { $0.rate503 = 1 }, clock: SkippingClock()) { relay in
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 20, prefix: "e0")
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "late"],
                                                       "options": ["time_to_live": 2]])
            let message = try await relay.waitUntilFinished(msgID, timeout: .seconds(30))
            #expect(message["state"] == "done")
            #expect(try message.int("expired_count") == 20)
            #expect(try message.int("sent_count") == 0)
            #expect(try message.int("retry_count") >= 20)
            let finished = try await relay.pool.query(
                "SELECT finished_at <= expires_at + interval '2 seconds' AS prompt FROM messages WHERE id = $1", [msgID])
            #expect(try finished.first?.bool("prompt") == true, "no retry long past the expiration")
            let failures = try await relay.pool.query("SELECT reason, count FROM message_failures WHERE message_id = $1", [msgID])
            #expect(try failures.map { "\(try $0.string("reason"))=\(try $0.int("count"))" } == ["Expired=20"])
            // Every attempt was refused and counted as a retry; none went out after the expiration.
            #expect(relay.simulator.stats.rejected["ServiceUnavailable"] == (try message.int("retry_count")))
        }
    }

    @Test func bigPushDurationSpreadsTheChunksOverThatManyMinutes() async throws {
        try await PipelineHarness.with(tune: { $0.chunkSize = 10 }) { relay in
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 100, prefix: "e1")
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "slowly"],
                                                       "options": ["big_push_duration": 1]])
            try await poll(timeout: .seconds(10), "the audience to be resolved") {
                try await relay.message(msgID)["state"] == "sending" ? true : nil
            }
            let spread = try await relay.pool.query("""
                SELECT count(*) AS chunks,
                       extract(epoch FROM min(c.available_at)) - m.accepted_at AS first,
                       extract(epoch FROM max(c.available_at)) - m.accepted_at AS last
                FROM push_chunks c JOIN messages m ON m.id = c.message_id WHERE m.id = $1 GROUP BY m.accepted_at
                """, [msgID]).first
            #expect(try spread?.int("chunks") == 10)
            let first = try #require(spread?["first"].flatMap { Double($0) })
            let last = try #require(spread?["last"].flatMap { Double($0) })
            #expect(first < 2, "the first chunk goes at once")
            #expect(last > 45 && last <= 61, "the last chunk waits for most of the minute (\(last) s)")
            try await Task.sleep(for: .milliseconds(500))
            #expect(relay.simulator.stats.accepted <= 20, "only the early chunks went out")
            #expect(try await relay.message(msgID)["state"] == "sending")
        }
    }
}
