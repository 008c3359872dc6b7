import APNSClient
import APNSSimulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPServer
import PostgresStore
import PushPipeline
import RelayAPI
import RelayCore
import RelayCrypto
import RelayTestSupport
import Testing
import TestSupport
import WebhookClient

/// The whole relay in this process — API on 127.0.0.1 (port 0), a push worker, a fresh
/// migrated database (a `TestRelay`, whose pool, port, secret box… it shows as its own) —
/// sending over TLS to an APNs simulator that trusts the test key (`TestAPNs`).
@dynamicMemberLookup
final class PipelineHarness: Sendable {
    static let adminToken = "test-admin-token-0123456789"
    static let keyID = "TESTKEY001"
    static let teamID = "TESTTEAM01"
    static let topic = "com.example.pipeline"

    /// Sizes of the big tests: the full sizes with PUSHRELAY_PIPELINE_FULL=1
    /// (`make reliability` / `make bench`), smaller ones inside `make test`.
    static let full = ProcessInfo.processInfo.environment["PUSHRELAY_PIPELINE_FULL"] == "1"

    let relay: TestRelay
    let simulator: APNSSimulator
    let directory: URL
    let keyPEM: String
    let pipeline: PipelineConfiguration

    subscript<Value>(dynamicMember keyPath: KeyPath<TestRelay, Value>) -> Value { relay[keyPath: keyPath] }

    private init(relay: TestRelay, simulator: APNSSimulator, directory: URL, keyPEM: String, pipeline: PipelineConfiguration) {
        self.relay = relay
        self.simulator = simulator
        self.directory = directory
        self.keyPEM = keyPEM
        self.pipeline = pipeline
    }

    /// Starts a simulator (tuned by `simulate`) and the relay.
    ///
    /// - Parameters:
    ///   - worker: false leaves the worker out (a test starts its own, or a process).
    ///   - database: a database to use (one a test stops and starts); a fresh one when nil.
    ///   - clock: the worker's (`SkippingClock`: backoffs take no time).
    ///   - webhooks: when set, a webhook delivery worker runs too, with this client.
    static func start(
        simulate: (inout APNSSimulatorConfiguration) -> Void = { _ in },
        tune: (inout PipelineConfiguration) -> Void = { _ in },
        worker startWorker: Bool = true,
        database: String? = nil,
        clock: any PipelineClock = SystemClock(),
        webhooks: WebhookClientConfiguration? = nil,
        logger: Logger = TestDatabase.quietLogger
    ) async throws -> PipelineHarness {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-pipeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let apns = try await TestAPNs.start(keyID: keyID, in: directory) { configuration in
            configuration.maxRecordedTokens = 200_000
            configuration.unregisteredPrefix = "dead"
            configuration.badTokenPrefix = "badd"
            simulate(&configuration)
        }
        var settings = TestRelay.Settings(adminToken: adminToken)
        settings.database = database
        settings.poolSize = 6
        settings.logger = logger
        settings.storeLogger = logger
        settings.pipeline = apns.pipeline
        settings.pipeline.pollInterval = .milliseconds(500)
        tune(&settings.pipeline)
        // As `serve` with every role: the API hands targeted chunks to the worker beside it.
        settings.runsWorker = startWorker
        settings.clock = clock
        settings.webhookClient = webhooks
        let relay = try await TestRelay.start(settings)
        return PipelineHarness(relay: relay, simulator: apns.simulator, directory: directory, keyPEM: apns.keyPEM,
                               pipeline: settings.pipeline)
    }

    /// Runs `body` against a fresh relay and simulator, and always stops them afterwards.
    static func with(
        simulate: (inout APNSSimulatorConfiguration) -> Void = { _ in },
        tune: (inout PipelineConfiguration) -> Void = { _ in },
        clock: any PipelineClock = SystemClock(),
        webhooks: WebhookClientConfiguration? = nil,
        logger: Logger = TestDatabase.quietLogger,
        _ body: (PipelineHarness) async throws -> Void
    ) async throws {
        try await withStopping(try await start(simulate: simulate, tune: tune, clock: clock, webhooks: webhooks, logger: logger),
                               stop: { await $0.stop() }, body)
    }

    func stop() async {
        await relay.stop()
        await simulator.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: HTTP

    struct Reply: Sendable {
        var status: Int
        var body: Data

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var errorCode: Int? { (json["error"] as? [String: Any])?["code"] as? Int }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    enum Auth: Sendable {
        case admin
        case basic(String, String)
        case bearer(String)
    }

    func request(_ method: String, _ path: String, auth: Auth = .admin, json: Any? = nil, base: String? = nil) async throws -> Reply {
        try await request(method, path, auth: auth, body: try json.map { try JSONSerialization.data(withJSONObject: $0) }, base: base)
    }

    func request(_ method: String, _ path: String, auth: Auth = .admin, body: Data?, base: String? = nil) async throws -> Reply {
        var request = URLRequest(url: URL(string: (base ?? "http://127.0.0.1:\(relay.port)") + path)!)
        request.httpMethod = method
        switch auth {
        case .admin: request.setValue("Bearer \(Self.adminToken)", forHTTPHeaderField: "Authorization")
        case .basic(let user, let password):
            request.setValue("Basic " + Data("\(user):\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        case .bearer(let token): request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return Reply(status: (response as! HTTPURLResponse).statusCode, body: data)
    }

    /// An app with the simulator-trusted token key uploaded: (key, secret, id).
    func createApp(_ name: String = "pipeline app", base: String? = nil) async throws -> App {
        let reply = try await request("POST", "/admin/v1/apps", json: ["name": name], base: base)
        guard reply.status == 201, let key = reply.json["app_key"] as? String, let secret = reply.json["master_secret"] as? String else {
            throw HarnessError("app creation failed: \(reply.status) \(reply.text)")
        }
        let credential = try await request("PUT", "/admin/v1/apps/\(key)/apns", json: [
            "auth": "token", "key_id": Self.keyID, "team_id": Self.teamID, "topic": Self.topic, "private_key": keyPEM,
        ], base: base)
        guard credential.status == 200 else { throw HarnessError("credential upload failed: \(credential.status) \(credential.text)") }
        let id = try await relay.pool.query("SELECT id FROM apps WHERE app_key = $1", [key]).first!.int("id")
        return App(key: key, secret: secret, id: Int64(id))
    }

    /// A device registered from the phone: a client key of `app`, then `POST /client/v1/devices`
    /// with it (docs/client-keys.md); the key, the registration id and the device's secret.
    func registerFromThePhone(_ app: App, token: String) async throws -> (clientKey: String, rid: String, secret: String) {
        let issued = try await request("POST", "/admin/v1/apps/\(app.key)/client-keys", json: ["name": "phone"])
        let registered = try await request("POST", "/client/v1/devices", auth: .bearer(try #require(issued.json["client_key"] as? String)),
                                           json: ["platform": "ios", "token": token, "environment": "production"])
        return (try #require(issued.json["client_key"] as? String), try #require(registered.json["registration_id"] as? String),
                try #require(registered.json["device_secret"] as? String))
    }

    struct App: Sendable {
        var key: String
        var secret: String
        var id: Int64
        var auth: Auth { .basic(key, secret) }
    }

    /// `POST /v3/push`.
    func push(_ app: App, _ body: [String: Any], base: String? = nil) async throws -> Reply {
        try await request("POST", "/v3/push", auth: app.auth, json: body, base: base)
    }

    /// Pushes and returns the msg_id, failing unless the push was accepted.
    func accepted(_ app: App, _ body: [String: Any], base: String? = nil) async throws -> Int64 {
        let reply = try await push(app, body, base: base)
        guard reply.status == 200, let id = (reply.json["msg_id"] as? String).flatMap(Int64.init) else {
            throw HarnessError("push refused: \(reply.status) \(reply.text)")
        }
        return id
    }

    // MARK: Database

    /// Inserts `count` active devices of the app straight into the registry's tables:
    /// tokens `prefix` + the index in hex, padded to 64 hex digits.
    ///
    /// - Returns: the tokens, in index order.
    @discardableResult
    func insertDevices(_ app: App, count: Int, prefix: String, from start: Int = 0, environment: String = "production",
                       badge: Int = 0) async throws -> [String] {
        try await relay.pool.query("""
            INSERT INTO devices (app_id, token, environment, badge, registered_at)
            SELECT $1, $2 || lpad(to_hex(i), 64 - length($2), '0'), $3, $4, now() - interval '1 hour'
            FROM generate_series($5::bigint, $6::bigint) AS i
            """, [app.id, prefix, environment, badge, start, start + count - 1])
        return (start..<start + count).map { Self.token(prefix: prefix, index: $0) }
    }

    static func token(prefix: String, index: Int) -> String {
        let hex = String(index, radix: 16)
        return prefix + String(repeating: "0", count: 64 - prefix.count - hex.count) + hex
    }

    func tag(_ tokens: [String], _ tag: String, app: App) async throws {
        try await relay.pool.query("""
            INSERT INTO device_tags (app_id, tag, device_id) SELECT $1, $2, id FROM devices WHERE app_id = $1 AND token = ANY ($3::text[])
            """, [app.id, tag, "{" + tokens.joined(separator: ",") + "}"])
    }

    /// A message's row (state and counters).
    func message(_ id: Int64) async throws -> PostgresRow {
        guard let row = try await relay.pool.query("SELECT * FROM messages WHERE id = $1", [id]).first else {
            throw HarnessError("no message \(id)")
        }
        return row
    }

    /// The devices the message's spans record as sent: how many entries, and how many
    /// different devices (the same when none is recorded twice).
    func sentDevices(_ id: Int64) async throws -> (entries: Int, devices: Int) {
        let row = try await relay.pool.query("""
            SELECT count(*) AS entries, count(DISTINCT device) AS devices FROM delivery_spans s, unnest(s.device_ids) AS device
            WHERE s.message_id = $1
            """, [id])[0]
        return (try row.int("entries"), try row.int("devices"))
    }

    /// Waits (polling, bounded) until the message reaches a final state; returns its row.
    @discardableResult
    func waitUntilFinished(_ id: Int64, timeout: Duration = .seconds(60)) async throws -> PostgresRow {
        try await poll(timeout: timeout, "message \(id) to finish") {
            let row = try await self.message(id)
            return ["done", "withdrawn"].contains(row["state"] ?? "") ? row : nil
        }
    }
}

@discardableResult
/// Polls `body` until it returns a value, at most `timeout`.
func poll<T>(timeout: Duration, interval: Duration = .milliseconds(20), _ what: String, _ body: () async throws -> T?) async throws -> T {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let value = try await body() { return value }
        guard ContinuousClock.now < deadline else { throw HarnessError("timed out waiting for \(what)") }
        try await Task.sleep(for: interval)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension APNSDelivery {
    /// The payload as JSON.
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] ?? [:] }
    var alert: String? { (json["aps"] as? [String: Any])?["alert"] as? String }
    var badge: Int? { (json["aps"] as? [String: Any])?["badge"] as? Int }
    var msgID: Int64? { (json["_j_msgid"] as? NSNumber)?.int64Value }
}
