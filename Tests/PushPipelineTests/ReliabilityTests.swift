import APNSSimulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PostgresStore
import Testing

/// Lanes: the fairness docs/architecture.md states (crash safety is in FaultTests), under `make test` at reduced sizes
/// and at the sizes with PUSHRELAY_PIPELINE_FULL=1.
@Suite(.serialized) struct ReliabilityTests {
    /// One app's big broadcast fills the broadcast lane; another app's single-user push
    /// still reaches APNs at once (its own slots, its own lane).
    @Test func aTargetedPushIsFastWhileAnotherAppsBroadcastRuns() async throws {
        let devices = PipelineHarness.full ? 100_000 : 20_000
        try await PipelineHarness.with(tune: { $0.slots = 4; $0.targetedSlots = 2 }) { relay in
            let big = try await relay.createApp("big")
            let small = try await relay.createApp("small")
            try await relay.insertDevices(big, count: devices, prefix: "f0")
            let user = try await relay.insertDevices(small, count: 1, prefix: "f1")[0]
            try await relay.pool.query("UPDATE devices SET alias = 'trader_1' WHERE app_id = $1", [small.id])

            let broadcast = try await relay.accepted(big, ["platform": "ios", "audience": "all", "notification": ["alert": "news"]])
            try await poll(timeout: .seconds(60), "the broadcast to be under way") {
                relay.simulator.stats.accepted >= 2_000 ? true : nil
            }
            let latencies = try await targetedLatencies(relay, small, alias: "trader_1", token: user, during: broadcast)
            #expect(latencies.allSatisfy { $0 < .seconds(1) }, "targeted latencies \(latencies)")
            try await relay.waitUntilFinished(broadcast, timeout: .seconds(300))
            #expect(try await relay.message(broadcast).int("sent_count") == devices)
        }
    }

    /// Three single-user pushes to `alias`, one after another, each timed from its acceptance
    /// until the simulator has it (at `token`), while `broadcast` is still running.
    private func targetedLatencies(_ relay: PipelineHarness, _ app: PipelineHarness.App, alias: String, token: String,
                                   during broadcast: Int64) async throws -> [Duration] {
        var latencies: [Duration] = []
        for round in 0..<3 {
            let started = ContinuousClock.now
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": ["alias": [alias]],
                                                       "notification": ["alert": "trade \(round) filled"]])
            try await poll(timeout: .seconds(30), interval: .milliseconds(2), "the targeted push at the simulator") {
                relay.simulator.deliveries(token: token).first?.msgID == msgID ? true : nil
            }
            latencies.append(ContinuousClock.now - started)
        }
        let state = try await relay.message(broadcast)["state"]
        #expect(state == "resolving" || state == "sending", "the broadcast was still running")
        return latencies
    }

    /// The broadcasting app's own single-user push does not wait behind its broadcast in the
    /// APNs client: with APNs answering 50 streams at a time after 20 ms (~2,500/s), the
    /// 2,000 broadcast notifications the client holds would take ~0.8 s to go first.
    @Test func aTargetedPushOfTheBroadcastingAppGoesAheadOfItsBroadcast() async throws {
        let devices = 10_000
        try await PipelineHarness.with(simulate: { $0.latencyMilliseconds = 20; $0.maxConcurrentStreams = 25 },
                                       tune: { $0.apnsConnections = 2; $0.slots = 4; $0.targetedSlots = 2 }) { relay in
            let app = try await relay.createApp("both")
            let crowd = try await relay.insertDevices(app, count: devices, prefix: "f4")
            try await relay.tag(crowd, "news", app: app)
            let user = try await relay.insertDevices(app, count: 1, prefix: "f5")[0]
            try await relay.pool.query("UPDATE devices SET alias = 'trader_2' WHERE token = $1", [user])

            // To every device but the user's, whose last delivery at the simulator is then the targeted push.
            let broadcast = try await relay.accepted(app, ["platform": "ios", "audience": ["tag": ["news"]],
                                                           "notification": ["alert": "news"]])
            try await poll(timeout: .seconds(60), "the broadcast to fill the client's window") {
                relay.simulator.stats.accepted >= 1_000 ? true : nil
            }
            let latencies = try await targetedLatencies(relay, app, alias: "trader_2", token: user, during: broadcast)
            #expect(latencies.allSatisfy { $0 < .milliseconds(400) }, "targeted latencies \(latencies)")
            try await relay.waitUntilFinished(broadcast, timeout: .seconds(120))
            #expect(try await relay.sentDevices(broadcast) == (devices, devices))
        }
    }

    /// Two apps' broadcasts share the broadcast lane chunk by chunk: the second app's
    /// starts long before the first app's has finished.
    @Test func broadcastsOfTwoAppsTakeTurns() async throws {
        try await PipelineHarness.with(simulate: { $0.latencyMilliseconds = 5 }, tune: { pipeline in
            pipeline.chunkSize = 100
            pipeline.slots = 1
            pipeline.targetedSlots = 1
        }) { relay in
            let first = try await relay.createApp("first")
            let second = try await relay.createApp("second")
            try await relay.insertDevices(first, count: 3_000, prefix: "f2")
            try await relay.insertDevices(second, count: 1_000, prefix: "f3")
            let a = try await relay.accepted(first, ["platform": "ios", "audience": "all", "notification": ["alert": "a"]])
            let b = try await relay.accepted(second, ["platform": "ios", "audience": "all", "notification": ["alert": "b"]])
            try await relay.waitUntilFinished(a)
            try await relay.waitUntilFinished(b)
            let early = try await relay.pool.query("""
                SELECT coalesce(sum(cardinality(device_ids)), 0) AS n FROM delivery_spans WHERE message_id = $1
                  AND at < (SELECT min(at) FROM delivery_spans WHERE message_id = $2)
                """, [a, b]).first!.int("n")
            #expect(early <= 500, "\(early) of the first app's 3000 devices went before the second app's first")
            let finished = try await relay.pool.query("""
                SELECT (SELECT finished_at FROM messages WHERE id = $2) < (SELECT finished_at FROM messages WHERE id = $1) AS interleaved
                """, [a, b]).first!.bool("interleaved")
            #expect(finished, "the smaller broadcast finished first although it came second")
        }
    }
}
