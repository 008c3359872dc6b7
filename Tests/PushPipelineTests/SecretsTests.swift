import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RelayCore
import Synchronization
import Testing
import TestSupport

/// Secret material never leaves the relay: a full run with debug logging captured, and no
/// log line, no error body, no metadata answer and no `/metrics` text holds a master secret,
/// the admin token, a private key's PEM body, a .p12 or its password.
@Suite struct SecretsTests {
    /// Every line a logger wrote.
    final class Capture: Sendable {
        private let lines = Mutex<[String]>([])
        var logger: Logger { Logger(label: "secrets-test", level: .trace, sink: { [self] line in lines.withLock { $0.append(line) } }) }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test func noSecretInLogsErrorsOrMetrics() async throws {
        let capture = Capture()
        try await PipelineHarness.with(logger: capture.logger) { relay in
            let directory = relay.directory
            let openssl = "/usr/bin/openssl"
            let certKey = directory.appendingPathComponent("cert-key.pem").path
            let cert = directory.appendingPathComponent("cert.pem").path
            let p12Path = directory.appendingPathComponent("cert.p12").path
            let p12Password = "p12-pass-\(UUID().uuidString)"
            try TestProcess.runBlocking(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", certKey, "-out", cert, "-days", "30",
                                        "-subj", "/UID=com.example.secret/CN=Apple Push Services: com.example.secret"])
            try TestProcess.runBlocking(openssl, ["pkcs12", "-export", "-in", cert, "-inkey", certKey, "-out", p12Path, "-passout", "pass:\(p12Password)"])
            let certKeyPEM = try String(contentsOfFile: certKey, encoding: .utf8)
            let p12 = try Data(contentsOf: URL(fileURLWithPath: p12Path)).base64EncodedString()

            var observed: [String] = []  // error bodies and every answer meant to show no secret
            func note(_ reply: PipelineHarness.Reply) {
                if reply.status >= 400 { observed.append(reply.text) }
            }

            // An app with the .p8 key (token auth), a device, a push delivered by the simulator.
            let app = try await relay.createApp("secrets")
            let token = String(repeating: "5e", count: 32)
            let registered = try await relay.request("POST", "/v3/devices", auth: app.auth,
                                                     json: ["platform": "ios", "token": token, "environment": "production"])
            #expect(registered.status == 200)
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "hi"]])
            let finished = try await relay.waitUntilFinished(msgID)
            #expect(finished["state"] == "done")
            #expect(relay.simulator.deliveries().contains { $0.token == token }, "the push reached the simulator")

            // A second app with a certificate, uploaded as PEM and as .p12; a wrong password too.
            let certApp = try await relay.request("POST", "/admin/v1/apps", json: ["name": "cert app"])
            let certKeyApp = try #require(certApp.json["app_key"] as? String)
            let certSecret = try #require(certApp.json["master_secret"] as? String)
            note(try await relay.request("PUT", "/admin/v1/apps/\(certKeyApp)/apns", json: [
                "auth": "certificate", "topic": "com.example.secret",
                "certificate": try String(contentsOfFile: cert, encoding: .utf8), "private_key": certKeyPEM]))
            note(try await relay.request("PUT", "/admin/v1/apps/\(certKeyApp)/apns", json: [
                "auth": "certificate", "topic": "com.example.secret", "p12": p12, "password": p12Password + "x"]))
            let p12Upload = try await relay.request("PUT", "/admin/v1/apps/\(certKeyApp)/apns", json: [
                "auth": "certificate", "topic": "com.example.secret", "p12": p12, "password": p12Password])
            #expect(p12Upload.status == 200)
            observed.append(p12Upload.text)
            // A malformed key: its text must not be echoed in the error.
            note(try await relay.request("PUT", "/admin/v1/apps/\(app.key)/apns", json: [
                "auth": "token", "key_id": "ABCDEFGHIJ", "team_id": "TEAM123456", "topic": "t",
                "private_key": String(relay.keyPEM.dropLast(30))]))

            // Rotation; the old secret, a wrong admin token and wrong secrets all fail.
            let rotated = try await relay.request("POST", "/admin/v1/apps/\(app.key)/secret")
            let newSecret = try #require(rotated.json["master_secret"] as? String)
            note(try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret)))
            note(try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, newSecret + "0")))
            note(try await relay.request("GET", "/v3/push/cid", auth: .basic(certKeyApp, certSecret + "0")))
            note(try await relay.request("POST", "/v3/push", auth: .basic(app.key, newSecret), body: Data("{\"audience\":".utf8)))
            var wrongAdmin = URLRequest(url: URL(string: "http://127.0.0.1:\(relay.port)/admin/v1/apps")!)
            wrongAdmin.setValue("Bearer \(PipelineHarness.adminToken)x", forHTTPHeaderField: "Authorization")
            observed.append(String(decoding: try await URLSession.shared.data(for: wrongAdmin).0, as: UTF8.self))
            #expect(try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, newSecret)).status == 200)

            for path in ["/admin/v1/apps/\(app.key)", "/admin/v1/apps/\(app.key)/apns", "/admin/v1/apps/\(certKeyApp)/apns",
                         "/admin/v1/apps", "/metrics"] {
                observed.append(try await relay.request("GET", path).text)
            }
            let metrics = try await relay.request("GET", "/metrics")
            #expect(metrics.status == 200 && metrics.text.contains("# TYPE"))

            let logs = capture.all
            #expect(logs.count > 20, "debug logging was captured (\(logs.count) lines)")
            let pemBodies = [relay.keyPEM, certKeyPEM].flatMap(Self.pemBodyLines)
            let basic = Data("\(app.key):\(newSecret)".utf8).base64EncodedString()
            let secrets: [(String, String)] = [
                ("master secret", app.secret), ("rotated master secret", newSecret), ("cert app's master secret", certSecret),
                ("admin token", PipelineHarness.adminToken), ("p12 password", p12Password), ("Basic header", basic),
                ("p12 bytes", String(p12.prefix(64))),
            ] + pemBodies.map { ("PEM body line", $0) }
            for (what, secret) in secrets {
                for line in logs where line.contains(secret) { Issue.record("\(what) in a log line: \(line)") }
                for text in observed where text.contains(secret) { Issue.record("\(what) in an answer: \(text)") }
            }
        }
    }

    /// The base64 lines between a PEM's BEGIN and END lines.
    static func pemBodyLines(_ pem: String) -> [String] {
        pem.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") && $0.count >= 16 }
    }
}
