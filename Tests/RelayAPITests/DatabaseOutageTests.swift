import Foundation
import PostgresStore
import Testing
import TestSupport

/// The relay keeps serving across a database restart: 503 with code 1030 meanwhile, never a
/// hang or a crash, and normal answers once the database is back.
@Suite struct DatabaseOutageTests {
    @Test func servesAgainAfterTheDatabaseRestarts() async throws {
        let directory = try temporaryDirectory().appendingPathComponent("cluster").path
        let cluster = EmbeddedPostgres(directory: directory, logger: TestDatabase.quietLogger)
        let url = try cluster.start()
        let relay = try await RelayHarness.start(connectionString: url)
        do {
            let app = try await relay.createApp()
            #expect(try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret)).status == 200)
            #expect(try await relay.request("GET", "/readyz", auth: .none).status == 200)

            try cluster.stop()
            let started = ContinuousClock.now
            let during = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret))
            #expect(during.status == 503)
            #expect(during.errorCode == 1030)
            let notReady = try await relay.request("GET", "/readyz", auth: .none)
            #expect(notReady.status == 503 && notReady.errorCode == 1030)
            #expect(ContinuousClock.now - started < .seconds(10), "requests during the outage fail fast")
            #expect(try await relay.request("GET", "/healthz", auth: .none).status == 200)

            _ = try cluster.start()
            // The pool reconnects by itself; poll until it has (bounded).
            let deadline = ContinuousClock.now + .seconds(30)
            var status = 0
            while ContinuousClock.now < deadline {
                status = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret)).status
                if status == 200 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(status == 200)
            #expect(try await relay.request("GET", "/readyz", auth: .none).status == 200)
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
