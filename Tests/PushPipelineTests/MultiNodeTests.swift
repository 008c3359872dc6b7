import Foundation
import PostgresStore
import Testing
import TestSupport

/// Several nodes on one PostgreSQL: `pushrelay serve --role api` beside two
/// `pushrelay serve --role worker` processes, one database, one simulator.
@Suite(.serialized) struct MultiNodeTests {
    /// An API-only node accepts a broadcast; two worker-only nodes share its chunks (both
    /// hold leases while it runs), and every device gets the push exactly once (nobody
    /// crashes, so the duplicate window never opens). 100,000 devices with
    /// PUSHRELAY_PIPELINE_FULL=1, 20,000 inside `make test`.
    @Test func anAPINodeAndTwoWorkerNodesShareABroadcastAndSendEachDeviceOnce() async throws {
        let devices = PipelineHarness.full ? 100_000 : 20_000
        let relay = try await PipelineHarness.start(worker: false)
        var processes: [Process] = []
        do {
            let port = try TestProcess.freePort()
            let base = "http://127.0.0.1:\(port)"
            var environment = relay.processEnvironment(port: port)
            // The default lease: nobody dies here, and a lease is only extended between
            // rounds, so the crash tests' 2 s could run out under load on a round still
            // sending and let the other worker send the chunk again.
            environment["PUSHRELAY_CHUNK_LEASE_SECONDS"] = "30"
            // The API node first: it writes the data directory's secret key the workers read.
            processes.append(try await RelayProcess.start(arguments: ["serve", "--role", "api"], environment: environment, base: base))
            let app = try await relay.createApp(base: base)
            let tokens = try await relay.insertDevices(app, count: devices, prefix: "e0")
            var workers: [Process] = []
            for _ in 0..<2 {
                // Each worker answers /healthz, /readyz and /metrics on a port of its own.
                var own = environment
                own["PUSHRELAY_LISTEN"] = "127.0.0.1:\(try TestProcess.freePort())"
                workers.append(try await RelayProcess.start(arguments: ["serve", "--role", "worker"], environment: own, base: nil))
            }
            processes += workers

            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "shared"]], base: base)
            // Lease owners are cleared when a chunk is done: sample them while the broadcast runs.
            var owners: Set<String> = []
            let message = try await poll(timeout: .seconds(600), interval: .milliseconds(10), "the broadcast to finish") { () -> PostgresRow? in
                for row in try await relay.pool.query("SELECT DISTINCT lease_owner FROM push_chunks WHERE state = 'leased' AND message_id = $1", [msgID]) {
                    owners.insert(try row.string("lease_owner"))
                }
                let row = try await relay.message(msgID)
                return ["done", "withdrawn"].contains(row["state"] ?? "") ? row : nil
            }
            let running = workers.filter(\.isRunning).count
            #expect(running == 2, "no worker died")
            let workerPIDs = workers.map { "-\($0.processIdentifier)-" }
            let sharing = workerPIDs.filter { pid in owners.contains { $0.contains(pid) } }
            #expect(sharing.count == 2, "chunks were leased by \(owners.sorted()); worker pids \(workerPIDs)")
            #expect(owners.count == 2, "only the two workers lease chunks (the API node sends nothing)")

            #expect(message["state"] == "done")
            #expect(try message.int("sent_count") == devices)
            let deliveries = relay.simulator.deliveries()
            #expect(deliveries.count == devices)
            #expect(Set(deliveries.map(\.token)) == Set(tokens), "every device received the push")
            #expect(deliveries.allSatisfy { $0.count == 1 }, "\(deliveries.filter { $0.count > 1 }.count) devices got it twice")
            #expect(relay.simulator.stats.accepted == devices)
            #expect(try await relay.sentDevices(msgID) == (devices, devices), "every device recorded sent once")
        } catch {
            RelayProcess.stop(processes)
            await relay.stop()
            throw error
        }
        RelayProcess.stop(processes)
        await relay.stop()
    }

    /// `--role` repeats; an unknown role is refused before anything starts.
    @Test func serveRefusesAnUnknownRole() throws {
        let process = Process()
        process.executableURL = try TestProcess.binary()
        process.arguments = ["serve", "--role", "api", "--role", "everything"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(text.contains("--role api|worker|scheduler|all, repeatable"), "\(text)")
    }
}
