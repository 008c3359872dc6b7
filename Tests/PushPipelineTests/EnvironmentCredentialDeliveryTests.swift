import APNSSimulator
import Foundation
import PostgresStore
@testable import PushPipeline
import RelayTestSupport
import Testing
import TestSupport

/// Sandbox and production credentials of one app, end to end against APNs simulators that
/// check provider tokens: each environment's devices are reached with that environment's key,
/// and a key APNs refuses in one environment pauses only that environment's chunks.
@Suite(.serialized) struct EnvironmentCredentialDeliveryTests {
    static let sandboxKeyID = "SANDBOXK01"

    static func tokenCredential(keyID: String, pem: String) -> [String: Any] {
        ["auth": "token", "key_id": keyID, "team_id": PipelineHarness.teamID, "topic": PipelineHarness.topic, "private_key": pem]
    }

    /// Two simulators, the sandbox one trusting only the sandbox key and the production one
    /// (the harness's) only the production key: a notification sent with the other
    /// environment's key would be refused (InvalidProviderToken), not delivered.
    @Test func eachEnvironmentIsReachedWithItsOwnKey() async throws {
        let directory = try FileManager.default.temporaryDirectory
            .appendingPathComponent("pushrelay-environments-\(UUID().uuidString)", isDirectory: true).creatingDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // One server certificate for both simulators, so the relay's one CA file trusts both.
        let certificate = directory.appendingPathComponent("simulator.pem").path
        let certificateKey = directory.appendingPathComponent("simulator-key.pem").path
        try TestProcess.runBlocking("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                                         "-keyout", certificateKey, "-out", certificate, "-days", "1", "-subj", "/CN=localhost",
                                                         "-addext", "subjectAltName=IP:127.0.0.1"])
        let sandboxKey = try await TestAPNs.makeKey(in: directory)

        var configuration = APNSSimulatorConfiguration()
        configuration.listen = .init(host: "127.0.0.1", port: 0)
        configuration.jwtKeys = [Self.sandboxKeyID: sandboxKey]
        configuration.certificatePath = certificate
        configuration.keyPath = certificateKey
        configuration.threads = 1
        let sandbox = try APNSSimulator(configuration: configuration, logger: TestDatabase.quietLogger)
        let sandboxPort = try sandbox.start().port
        do {
            try await PipelineHarness.with(simulate: { $0.certificatePath = certificate; $0.keyPath = certificateKey },
                                           tune: { $0.sandboxURL = URL(string: "https://127.0.0.1:\(sandboxPort)")! }) { relay in
                // Both environments hold the production key; the sandbox then gets its own.
                let app = try await relay.createApp()
                let put = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/apns/sandbox",
                                                  json: Self.tokenCredential(keyID: Self.sandboxKeyID, pem: sandboxKey))
                #expect(put.status == 200, "\(put.text)")
                let sandboxTokens = try await relay.insertDevices(app, count: 25, prefix: "5a", environment: "sandbox")
                let productionTokens = try await relay.insertDevices(app, count: 25, prefix: "9b", environment: "production")

                let toSandbox = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "dev build"],
                                                               "options": ["apns_production": false]])
                let toProduction = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "store build"]])
                // And a targeted push to one device of each (the API hands it to the worker beside it).
                try await relay.pool.query("UPDATE devices SET alias = 'u_' || environment WHERE token = ANY ($1::text[])",
                                           ["{\(sandboxTokens[0]),\(productionTokens[0])}"])
                let targetedSandbox = try await relay.accepted(app, ["platform": "ios", "audience": ["alias": ["u_sandbox"]],
                                                                     "notification": ["alert": "one dev"], "options": ["apns_production": false]])
                let targetedProduction = try await relay.accepted(app, ["platform": "ios", "audience": ["alias": ["u_production"]],
                                                                        "notification": ["alert": "one store"]])
                for (message, count) in [(toSandbox, 25), (toProduction, 25), (targetedSandbox, 1), (targetedProduction, 1)] {
                    let finished = try await relay.waitUntilFinished(message)
                    #expect(try finished.int("sent_count") == count, "message \(message)")
                    #expect(try finished.int("failed_count") == 0, "message \(message)")
                }
                #expect(Set(sandbox.deliveries().map(\.token)) == Set(sandboxTokens))
                #expect(Set(relay.simulator.deliveries().map(\.token)) == Set(productionTokens))
                #expect(sandbox.deliveries(token: sandboxTokens[0]).map(\.count) == [2], "the broadcast and the targeted push")
                let both = try await relay.request("GET", "/admin/v1/apps/\(app.key)/apns")
                #expect((both.json["sandbox"] as? [String: Any])?["broken_at"] is NSNull)
                #expect((both.json["production"] as? [String: Any])?["broken_at"] is NSNull)
            }
        } catch {
            await sandbox.shutdown()
            throw error
        }
        await sandbox.shutdown()
    }

    /// The sandbox key is one APNs refuses: the sandbox's broadcast and targeted pushes wait,
    /// the production ones are delivered meanwhile; a new sandbox key resumes the sandbox.
    @Test func aRefusedKeyPausesOnlyItsEnvironment() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let otherKey = try await TestAPNs.makeKey(in: relay.directory.appendingPathComponent("other", isDirectory: true).creatingDirectory())
            let wrong = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/apns/sandbox",
                                                json: Self.tokenCredential(keyID: "WRONGKEY01", pem: otherKey))
            #expect(wrong.status == 200)
            let sandboxTokens = try await relay.insertDevices(app, count: 30, prefix: "5c", environment: "sandbox")
            let productionTokens = try await relay.insertDevices(app, count: 30, prefix: "9d", environment: "production")
            try await relay.pool.query("UPDATE devices SET alias = 'u_' || environment WHERE token = ANY ($1::text[])",
                                       ["{\(sandboxTokens[0]),\(productionTokens[0])}"])

            let toSandbox = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "paused"],
                                                           "options": ["apns_production": false]])
            let broken = try await poll(timeout: .seconds(30), "the sandbox credential to be marked broken") {
                let metadata = try await relay.request("GET", "/admin/v1/apps/\(app.key)/apns/sandbox")
                return metadata.json["broken_at"] is String ? metadata.json : nil
            }
            #expect(broken["broken_reason"] as? String == "InvalidProviderToken")
            let production = try await relay.request("GET", "/admin/v1/apps/\(app.key)/apns/production")
            #expect(production.json["broken_at"] is NSNull)

            // Production goes on, broadcast and targeted alike; the sandbox's targeted push waits too.
            let targetedSandbox = try await relay.accepted(app, ["platform": "ios", "audience": ["alias": ["u_sandbox"]],
                                                                 "notification": ["alert": "paused too"], "options": ["apns_production": false]])
            let toProduction = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "goes"]])
            let targetedProduction = try await relay.accepted(app, ["platform": "ios", "audience": ["alias": ["u_production"]],
                                                                    "notification": ["alert": "goes too"]])
            #expect(try await relay.waitUntilFinished(toProduction).int("sent_count") == 30)
            #expect(try await relay.waitUntilFinished(targetedProduction).int("sent_count") == 1)
            #expect(Set(relay.simulator.deliveries().map(\.token)) == Set(productionTokens))
            for message in [toSandbox, targetedSandbox] {
                let paused = try await relay.message(message)
                #expect(paused["state"] == "sending", "message \(message)")
                #expect(try paused.int("sent_count") == 0 && paused.int("failed_count") == 0, "message \(message)")
            }
            let waiting = try await relay.pool.query("""
                SELECT count(*) AS n FROM push_chunks WHERE message_id = ANY ($1::bigint[]) AND state = 'ready'
                """, ["{\(toSandbox),\(targetedSandbox)}"])
            #expect(try waiting[0].int("n") >= 2, "the sandbox's chunks wait, ready")

            let fixed = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/apns/sandbox", json: Self.tokenCredential(
                keyID: PipelineHarness.keyID, pem: relay.keyPEM))
            #expect(fixed.json["broken_at"] is NSNull)
            #expect(try await relay.waitUntilFinished(toSandbox).int("sent_count") == 30)
            #expect(try await relay.waitUntilFinished(targetedSandbox).int("sent_count") == 1)
            #expect(Set(relay.simulator.deliveries().map(\.token)) == Set(productionTokens + sandboxTokens))
        }
    }
}
