import Foundation
import PushPipeline
import Synchronization
import Testing

/// Many apps on one relay (issue 24), reduced for `make test` (`make bench-tenants` runs
/// 10,000): 200 apps, each with its credential (one team's key: one provider token for all)
/// and a device, push at once through the whole relay to the simulator, under a bound of 50
/// APNs connections. Every push is delivered, the process's thread count does not grow with
/// the apps, the connections held stay within the bound, and once idle every connection closes
/// and every client is dropped.
@Suite(.serialized) struct TenantScaleTests {
    static let apps = PipelineHarness.full ? 1000 : 200
    static let bound = 50

    /// Each app's push: to its one user.
    static var push: [String: Any] { ["platform": "ios", "audience": ["alias": ["user"]], "notification": ["alert": "yours"]] }

    /// TCP connections to 127.0.0.1:`port` in ESTABLISHED state (/proc/net/tcp): the relay's
    /// side, which leaves that state the moment the relay closes (the simulator's count lags).
    static func established(toPort port: Int) -> Int {
        // Read to the end: procfs files report a size of 0.
        guard let data = FileHandle(forReadingAtPath: "/proc/net/tcp")?.readDataToEndOfFile() else { return 0 }
        let table = String(decoding: data, as: UTF8.self)
        let remote = String(format: "0100007F:%04X", port)
        return table.split(separator: "\n").dropFirst().count { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[2] == remote && fields[3] == "01"
        }
    }

    static func threadCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
    }

    @Test(.timeLimit(.minutes(5))) func manyAppsPushAtOnceWithinTheBoundsAndCostNothingOnceIdle() async throws {
        try await PipelineHarness.with(tune: { $0.apnsIdleTimeout = 1; $0.apnsMaxConnectionsTotal = Self.bound }) { relay in
            var created: [PipelineHarness.App] = []
            for index in 0..<Self.apps { created.append(try await relay.createApp("tenant \(index)")) }
            let apps = created
            try await relay.pool.query("""
                INSERT INTO devices (app_id, token, environment, alias)
                SELECT a.id, lpad(to_hex(a.id), 64, 'e'), 'production', 'user' FROM apps a
                """)

            // One app first, so what every app shares (loops, pool threads, Swift's
            // concurrency threads) runs before counting.
            try await relay.waitUntilFinished(try await relay.accepted(apps[0], Self.push))
            let threadsBefore = try Self.threadCount()

            // The relay's connections to the simulator, sampled while the apps push.
            let simulatorPort = try #require(relay.pipeline.productionURL.port)
            let peak = Atomic<Int>(0)
            let sampling = Task {
                while !Task.isCancelled {
                    peak.max(Self.established(toPort: simulatorPort), ordering: .relaxed)
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
            let ids = try await withThrowingTaskGroup(of: Int64.self) { group in
                for app in apps.dropFirst() { group.addTask { try await relay.accepted(app, Self.push) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for id in ids {
                let message = try await relay.waitUntilFinished(id, timeout: .seconds(120))
                #expect(try message.int("sent_count") == 1, "message \(id)")
            }
            sampling.cancel()
            let threadsAfter = try Self.threadCount()
            #expect(relay.simulator.stats.accepted == Self.apps, "every app's push delivered, once")
            #expect(threadsAfter - threadsBefore < 10, "\(threadsBefore) threads with one app, \(threadsAfter) with \(Self.apps)")
            // The kernel writes /proc/net/tcp bucket by bucket, not at one instant: a connection
            // given back and its successor can both appear in one read (the exact bound is
            // ConnectionBudgetTests' and ClientIntegrationTests'). Without the bound each of the
            // apps would hold its own.
            let mostOpen = peak.load(ordering: .relaxed)
            #expect(mostOpen >= 1 && mostOpen <= Self.bound + 3, "at most \(mostOpen) open at once")

            // Idle for the idle timeout (1 s here): no connection, no client left.
            try await poll(timeout: .seconds(30), "the idle connections to close") {
                relay.simulator.stats.openConnections == 0 ? true : nil
            }
            try await poll(timeout: .seconds(30), "the idle clients to be dropped") {
                let scrape = try await MetricsEndpointTests().scrape(relay)
                return scrape.value("pushrelay_apns_clients", [:]) == 0 ? true : nil
            }
        }
    }
}
