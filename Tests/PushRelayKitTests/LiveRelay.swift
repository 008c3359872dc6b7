import APNSSimulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushRelayKit
import RelayTestSupport
import TestSupport

/// The whole relay in this process — API on 127.0.0.1 (port 0), a push worker, a fresh
/// migrated database (a `TestRelay`) — sending to an APNs simulator (`TestAPNs`), for
/// PushRelayKit to talk to.
final class LiveRelay: Sendable {
    static let adminToken = "kit-test-admin-token-0123456789"
    static let keyID = "KITKEY0001"
    static let teamID = "KITTEAM001"
    static let topic = "com.example.kit"

    let relay: TestRelay
    let simulator: APNSSimulator
    let keyPEM: String
    let directory: URL

    private init(relay: TestRelay, simulator: APNSSimulator, keyPEM: String, directory: URL) {
        self.relay = relay
        self.simulator = simulator
        self.keyPEM = keyPEM
        self.directory = directory
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(relay.port)")! }

    /// Runs `body` against a fresh relay and simulator, and always stops them afterwards.
    static func with(_ body: (LiveRelay) async throws -> Void) async throws {
        try await withStopping(try await start(), stop: { await $0.stop() }, body)
    }

    static func start() async throws -> LiveRelay {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-kit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let apns = try await TestAPNs.start(keyID: keyID, in: directory)
        var settings = TestRelay.Settings(adminToken: adminToken)
        settings.pipeline = apns.pipeline
        settings.pipeline.pollInterval = .milliseconds(200)
        settings.runsWorker = true
        let relay = try await TestRelay.start(settings)
        return LiveRelay(relay: relay, simulator: apns.simulator, keyPEM: apns.keyPEM, directory: directory)
    }

    func stop() async {
        await relay.stop()
        await simulator.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Creates an app with the simulator-trusted APNs key through the admin API and returns
    /// a PushRelayKit client for it.
    func makeApp(_ name: String = "kit app") async throws -> PushRelayClient {
        let created = try await admin("POST", "/admin/v1/apps", ["name": name])
        guard let key = created["app_key"] as? String, let secret = created["master_secret"] as? String else {
            throw TestFailure("app creation answered \(created)")
        }
        _ = try await admin("PUT", "/admin/v1/apps/\(key)/apns", [
            "auth": "token", "key_id": Self.keyID, "team_id": Self.teamID, "topic": Self.topic, "private_key": keyPEM,
        ])
        return PushRelayClient(baseURL: baseURL, appKey: key, masterSecret: secret, backoff: Backoff(initial: .milliseconds(50)))
    }

    /// A client key of the app, through the admin API: what an app ships.
    func makeClientKey(_ client: PushRelayClient) async throws -> String {
        let created = try await admin("POST", "/admin/v1/apps/\(client.appKey)/client-keys", ["name": "kit test"])
        guard let key = created["client_key"] as? String else { throw TestFailure("client key creation answered \(created)") }
        return key
    }

    /// Lets the app's devices set their own alias and tags (`client_may_set_alias`).
    func allowClientLabels(_ client: PushRelayClient) async throws {
        _ = try await admin("PUT", "/admin/v1/apps/\(client.appKey)/client-settings", ["client_may_set_alias": true])
    }

    /// A client of the same app with the wrong secret.
    func client(_ client: PushRelayClient, secret: String) -> PushRelayClient {
        PushRelayClient(baseURL: baseURL, appKey: client.appKey, masterSecret: secret, maxAttempts: 1)
    }

    private func admin(_ method: String, _ path: String, _ json: [String: Any]) async throws -> [String: Any] {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("Bearer \(Self.adminToken)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: json)
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as! HTTPURLResponse).statusCode
        guard (200..<300).contains(status) else { throw TestFailure("\(method) \(path): \(status) \(String(decoding: data, as: UTF8.self))") }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}

extension APNSDelivery {
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] ?? [:] }
    var badge: Int? { (json["aps"] as? [String: Any])?["badge"] as? Int }
}
