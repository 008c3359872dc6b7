import Foundation
import PostgresStore
import Synchronization
import Testing
import TestSupport

extension FaultTests {
    /// PostgreSQL stopped for a while (10 s at full size) under API load and during a
    /// broadcast: the API answers 503 with code 1030 meanwhile, quickly; every push it
    /// accepted, before or after, reaches every device; the fan-out resumes by itself once
    /// the database is back (the pool reconnects, the worker's LISTEN connection too).
    @Test func postgresStoppedUnderLoadAndDuringFanOut() async throws {
        let devices = FaultReport.full ? 50_000 : 4_000
        let outage: Duration = FaultReport.full ? .seconds(10) : .seconds(3)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-outage-\(UUID().uuidString)").path
        let cluster = EmbeddedPostgres(directory: directory, logger: TestDatabase.quietLogger)
        let url = try cluster.start()
        let relay: PipelineHarness
        do {
            relay = try await PipelineHarness.start(simulate: { $0.latencyMilliseconds = 5 }, tune: Self.tuneSmallWindow, database: url)
        } catch {
            try? cluster.stop()
            throw error
        }
        do {
            let started = ContinuousClock.now
            let big = try await relay.createApp("big")
            let small = try await relay.createApp("small")
            let bigTokens = try await relay.insertDevices(big, count: devices, prefix: "d0")
            let smallTokens = try await relay.insertDevices(small, count: 20, prefix: "d1")
            let broadcast = try await relay.accepted(big, ["platform": "ios", "audience": "all", "notification": ["alert": "outage"]])
            try await poll(timeout: .seconds(120), "the broadcast to be under way") {
                relay.simulator.stats.accepted >= devices / 10 ? true : nil
            }

            let stopLoad = StopFlag()
            let load = Task { await APILoad.run(relay, small, until: stopLoad) }
            try await Task.sleep(for: .milliseconds(500))
            try cluster.stop()
            let deliveredAtStop = relay.simulator.stats.accepted
            // The outage itself: nothing to wait for, the database is down for this long.
            try await Task.sleep(for: outage)
            let deliveredInOutage = relay.simulator.stats.accepted - deliveredAtStop
            _ = try cluster.start()
            try await poll(timeout: .seconds(60), "the API to accept pushes again") {
                (try? await relay.push(small, ["platform": "ios", "audience": "all", "notification": ["alert": "probe"]]))?.status == 200
                    ? true : nil
            }
            let backAt = try await relay.pool.query("SELECT now() AS t").first!.date("t")
            // The worker's LISTEN connection is back too (not only its polling fallback).
            try await poll(timeout: .seconds(15), "the worker to LISTEN again") {
                try await relay.pool.query("SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN %'")
                    .first!.int("n") > 0 ? true : nil
            }
            try await Task.sleep(for: .seconds(1))
            // A flag, not Task.cancel: cancelling URLSession's async calls can deadlock in
            // swift-corelibs-foundation.
            stopLoad.set()
            let result = await load.value

            #expect(result.unavailable > 0, "the API answered 503/1030 during the outage")
            #expect(result.unexpected.isEmpty, "\(result.unexpected.prefix(5))")
            #expect(result.slowest < .seconds(10), "no request hung: slowest \(result.slowest)")
            let message = try await relay.waitUntilFinished(broadcast, timeout: .seconds(FaultReport.full ? 600 : 120))
            #expect(try message.int("sent_count") == devices)
            // Chunks in hand when the database went away waited for it and went on: none
            // waited out its lease to be sent again.
            let resumed = try message.date("finished_at").timeIntervalSince(backAt)
            #expect(resumed < Double(relay.pipeline.leaseSeconds), "finished \(resumed) s after the database was back")
            let arrived = Arrivals(relay.simulator.deliveries(), tokens: bigTokens)
            #expect(arrived.delivered == devices, "every device of the broadcast received it")
            let window = relay.pipeline.slots * relay.pipeline.chunkSize
            #expect(arrived.duplicates <= window, "\(arrived.duplicates) duplicates; the in-flight window is \(window)")
            #expect(arrived.copies.allSatisfy { $0.collapseID == "pushrelay-\(broadcast)" })
            #expect(arrived.collapsed == arrived.duplicates, "every copy of a duplicate carries one collapse id, the first too")

            // The probe above counts as one more accepted push to the small app.
            let owed = result.accepted.count + 1
            for msgID in result.accepted { try await relay.waitUntilFinished(msgID, timeout: .seconds(60)) }
            let received = relay.simulator.deliveries().filter { Set(smallTokens).contains($0.token) }
            #expect(received.count == smallTokens.count && received.allSatisfy { $0.count >= owed },
                    "each small-app device got all \(owed) accepted pushes")
            let smallDuplicates = received.reduce(0) { $0 + max($1.count - owed, 0) }
            FaultReport.record("PostgreSQL down \(outage.components.seconds) s", sent: devices + owed * smallTokens.count,
                               delivered: arrived.delivered + received.reduce(0) { $0 + min($1.count, owed) },
                               duplicates: arrived.duplicates + smallDuplicates,
                               collapsed: arrived.collapsed, elapsed: ContinuousClock.now - started,
                               notes: "\(result.accepted.count) accepted, \(result.unavailable) × 503/1030, slowest "
                                   + "\(result.slowest.formatted(.units(allowed: [.milliseconds]))); \(deliveredInOutage) sent in the outage; "
                                   + "broadcast done \(String(format: "%.1f", resumed)) s after the database was back")
        } catch {
            await relay.stop()
            try? cluster.stop()
            throw error
        }
        await relay.stop()
        try cluster.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Set once, read by many.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// Pushes to an app from two loops until `stop` is set, sorting the answers.
struct APILoad {
    var accepted: [Int64] = []
    var unavailable = 0
    var unexpected: [String] = []
    var slowest: Duration = .zero

    static func run(_ relay: PipelineHarness, _ app: PipelineHarness.App, until stop: StopFlag) async -> APILoad {
        await withTaskGroup(of: APILoad.self) { group in
            for loop in 0..<2 {
                group.addTask {
                    var load = APILoad()
                    var n = 0
                    while !stop.isSet {
                        n += 1
                        let started = ContinuousClock.now
                        let reply: PipelineHarness.Reply
                        do {
                            reply = try await relay.push(app, ["platform": "ios", "audience": "all",
                                                               "notification": ["alert": "load \(loop)-\(n)"]])
                        } catch {
                            load.unexpected.append("\(error)")
                            break
                        }
                        load.slowest = max(load.slowest, ContinuousClock.now - started)
                        if reply.status == 200, let id = (reply.json["msg_id"] as? String).flatMap(Int64.init) {
                            load.accepted.append(id)
                        } else if reply.status == 503, reply.errorCode == 1030 {
                            load.unavailable += 1
                            try? await Task.sleep(for: .milliseconds(50))
                        } else {
                            load.unexpected.append("\(reply.status) \(reply.text)")
                        }
                    }
                    return load
                }
            }
            var total = APILoad()
            for await part in group {
                total.accepted += part.accepted
                total.unavailable += part.unavailable
                total.unexpected += part.unexpected
                total.slowest = max(total.slowest, part.slowest)
            }
            return total
        }
    }
}
