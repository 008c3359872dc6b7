import Foundation
import PostgresStore
import RelayCore
import Testing
import TestSupport

/// `pushrelay serve --role worker` and `--role scheduler` answer `/healthz`, `/readyz` and
/// `/metrics` on `PUSHRELAY_LISTEN`, and nothing else; a hung worker fails both probes.
@Suite(.serialized) struct ObservableRolesTests {
    @Test func workerAndSchedulerNodesAnswerHealthReadinessAndMetricsOnly() async throws {
        let relay = try await PipelineHarness.start(worker: false)
        var processes: [Process] = []
        do {
            let apiPort = try TestProcess.freePort()
            let api = "http://127.0.0.1:\(apiPort)"
            var environment = relay.processEnvironment(port: apiPort, leaseSeconds: 30)
            // A loop that has not come round within its wait plus a second is stalled.
            environment["PUSHRELAY_LOOP_STALL_SECONDS"] = "1"
            // The API node first: it writes the data directory's secret key the others read.
            processes.append(try await RelayProcess.start(arguments: ["serve", "--role", "api"], environment: environment, base: api))
            func node(_ role: String) async throws -> String {
                let port = try TestProcess.freePort()
                var own = environment
                own["PUSHRELAY_LISTEN"] = "127.0.0.1:\(port)"
                let base = "http://127.0.0.1:\(port)"
                // Returns once its /readyz answers 200.
                processes.append(try await RelayProcess.start(arguments: ["serve", "--role", role], environment: own, base: base))
                return base
            }
            let worker = try await node("worker")
            let scheduler = try await node("scheduler")

            let app = try await relay.createApp(base: api)
            try await relay.insertDevices(app, count: 5, prefix: "0b5e")
            for base in [worker, scheduler] {
                let health = try await relay.request("GET", "/healthz", base: base)
                #expect(health.status == 200 && health.json["status"] as? String == "ok", "\(base): \(health.text)")
                let ready = try await relay.request("GET", "/readyz", base: base)
                #expect(ready.status == 200 && ready.json["status"] as? String == "ready", "\(base): \(ready.text)")
                // Nothing else: the API's routes are JPush's 404 here, whoever asks.
                for (method, path, auth) in [("POST", "/v3/push", app.auth), ("GET", "/v3/push/cid", app.auth),
                                             ("GET", "/admin/v1/apps", PipelineHarness.Auth.admin), ("GET", "/dashboard", .admin)] {
                    let reply = try await relay.request(method, path, auth: auth, json: method == "POST" ? [:] : nil, base: base)
                    #expect(reply.status == 404 && reply.errorCode == 7010, "\(base) \(method) \(path): \(reply.status) \(reply.text)")
                }
            }

            // The worker's metrics: what it sent, APNs' answers, its clients, its pool, the queue.
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "split"]], base: api)
            try await relay.waitUntilFinished(msgID)
            let scraped = try await relay.request("GET", "/metrics", base: worker)
            #expect(scraped.status == 200)
            let metrics = try MetricsEndpointTests.parse(scraped.text)
            #expect(metrics.value(RelayMetrics.deliveries, ["app_key": app.key, "outcome": "sent"]) == 5)
            #expect(metrics.value(RelayMetrics.apnsResponses, ["app_key": app.key, "status": "200", "reason": ""]) == 5)
            #expect((metrics.value(RelayMetrics.apnsClients, [:]) ?? 0) >= 1)
            #expect((metrics.value(RelayMetrics.apnsConnections, [:]) ?? 0) >= 1)
            #expect(metrics.value(RelayMetrics.queueChunks, ["lane": "broadcast", "state": "ready"]) != nil)
            #expect(metrics.value(RelayMetrics.dbPoolConnections, ["state": "idle"]) != nil)
            let apiMetrics = try MetricsEndpointTests.parse(try await relay.request("GET", "/metrics", base: api).text)
            #expect(apiMetrics.value(RelayMetrics.deliveries, ["app_key": app.key, "outcome": "sent"]) == nil, "the API node sent nothing")
            #expect(apiMetrics.value(RelayMetrics.pushesAccepted, ["app_key": app.key]) == 1)
            // Between them the split nodes expose every metric the Grafana dashboard asks for.
            for name in try GrafanaDashboardTests.metricNames() {
                #expect(metrics.types[name] != nil || apiMetrics.types[name] != nil, "\(name) is exposed by no node")
            }
            for name in [RelayMetrics.apnsResponses, RelayMetrics.deliveries, RelayMetrics.retries, RelayMetrics.tokensInvalidated,
                         RelayMetrics.apnsClients, RelayMetrics.apnsStreams, RelayMetrics.apnsInFlight, RelayMetrics.apnsConnections] {
                #expect(metrics.types[name] != nil, "\(name) is not on the worker's /metrics")
            }

            // A hung worker: its leasing loops wait on a lock of the queue this test holds.
            let lock = try await TableLock.take("push_chunks", database: relay.databaseURL)
            do {
                let stalled = try await poll(timeout: .seconds(30), interval: .milliseconds(100), "the worker to report itself stalled") {
                    let reply = try await relay.request("GET", "/healthz", base: worker)
                    return reply.status == 503 ? reply : nil
                }
                #expect(stalled.errorCode == 1030 && stalled.text.contains("leasing"), "\(stalled.text)")
                #expect(try await relay.request("GET", "/readyz", base: worker).status == 503)
                #expect(try await relay.request("GET", "/healthz", base: scheduler).status == 200, "the scheduler does not read the queue")
            } catch {
                await lock.release()
                throw error
            }
            await lock.release()
            try await poll(timeout: .seconds(30), interval: .milliseconds(100), "the worker to come round again") {
                try await relay.request("GET", "/healthz", base: worker).status == 200 ? true : nil
            }
        } catch {
            RelayProcess.stop(processes)
            await relay.stop()
            throw error
        }
        RelayProcess.stop(processes)
        #expect(processes.allSatisfy { $0.terminationReason == .exit && $0.terminationStatus == 0 })
        await relay.stop()
    }
}
