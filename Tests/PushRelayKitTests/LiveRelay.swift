import APNSSimulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPServer
import PostgresStore
import PushPipeline
import PushRelayKit
import RelayAPI
import RelayCore
import RelayCrypto
import TestSupport

/// The whole relay in this process — API on 127.0.0.1 (port 0), a push worker, a fresh
/// migrated database — sending to an APNs simulator, for PushRelayKit to talk to.
final class LiveRelay: Sendable {
    static let adminToken = "kit-test-admin-token-0123456789"
    static let keyID = "KITKEY0001"
    static let teamID = "KITTEAM001"
    static let topic = "com.example.kit"

    let simulator: APNSSimulator
    let pool: PostgresPool
    let server: HTTPServer
    let port: Int
    let worker: PushWorker
    let workerTask: Task<Void, Never>
    let directory: URL

    private init(simulator: APNSSimulator, pool: PostgresPool, server: HTTPServer, port: Int, worker: PushWorker,
                 workerTask: Task<Void, Never>, directory: URL) {
        self.simulator = simulator
        self.pool = pool
        self.server = server
        self.port = port
        self.worker = worker
        self.workerTask = workerTask
        self.directory = directory
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Runs `body` against a fresh relay and simulator, and always stops them afterwards.
    static func with(_ body: (LiveRelay) async throws -> Void) async throws {
        let relay = try await start()
        do {
            try await body(relay)
        } catch {
            await relay.stop()
            throw error
        }
        await relay.stop()
    }

    static func start() async throws -> LiveRelay {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-kit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keyPath = directory.appendingPathComponent("AuthKey.p8").path
        try run("/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyPath])
        let keyPEM = try String(contentsOfFile: keyPath, encoding: .utf8)

        var simulatorConfiguration = APNSSimulatorConfiguration()
        simulatorConfiguration.listen = .init(host: "127.0.0.1", port: 0)
        simulatorConfiguration.jwtKeys = [keyID: keyPEM]
        simulatorConfiguration.threads = 1
        let simulator = try APNSSimulator(configuration: simulatorConfiguration, logger: TestDatabase.quietLogger)
        let simulatorPort = try simulator.start().port
        let caFile = directory.appendingPathComponent("simulator.pem").path
        try simulator.certificatePEM.write(toFile: caFile, atomically: true, encoding: .utf8)

        let url = try await TestDatabase.fresh()
        var poolConfiguration = PostgresPoolConfiguration(connectionString: url, size: 4)
        poolConfiguration.acquireTimeout = .seconds(10)
        let pool = PostgresPool(configuration: poolConfiguration, logger: TestDatabase.quietLogger)
        _ = try await Migrator.migrate(pool, logger: TestDatabase.quietLogger)
        let box = try SecretBox(key: SecureRandom.bytes(32))

        var pipeline = PipelineConfiguration()
        pipeline.productionURL = URL(string: "https://127.0.0.1:\(simulatorPort)")!
        pipeline.sandboxURL = pipeline.productionURL
        pipeline.caFile = caFile
        pipeline.pollInterval = .milliseconds(200)

        var dependencies = RelayAPIDependencies(pool: pool, secretBox: box, adminToken: adminToken, logger: TestDatabase.quietLogger)
        dependencies.chunkSize = pipeline.chunkSize
        var serverConfiguration = HTTPServerConfiguration()
        serverConfiguration.port = 0
        serverConfiguration.threads = 2
        let server = HTTPServer(configuration: serverConfiguration, responder: RelayAPI.router(dependencies), logger: TestDatabase.quietLogger)
        let port = try server.start()

        let worker = PushWorker(pool: pool, connectionString: url, secretBox: box, configuration: pipeline, logger: TestDatabase.quietLogger)
        let workerTask = Task { await worker.run() }
        let relay = LiveRelay(simulator: simulator, pool: pool, server: server, port: port, worker: worker,
                              workerTask: workerTask, directory: directory)
        return relay
    }

    func stop() async {
        worker.stop()
        await workerTask.value
        await server.shutdown()
        await pool.close()
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
            "auth": "token", "key_id": Self.keyID, "team_id": Self.teamID, "topic": Self.topic, "private_key": try keyPEMText(),
        ])
        return PushRelayClient(baseURL: baseURL, appKey: key, masterSecret: secret, backoff: Backoff(initial: .milliseconds(50)))
    }

    /// A client of the same app with the wrong secret.
    func client(_ client: PushRelayClient, secret: String) -> PushRelayClient {
        PushRelayClient(baseURL: baseURL, appKey: client.appKey, masterSecret: secret, maxAttempts: 1)
    }

    private func keyPEMText() throws -> String {
        try String(contentsOfFile: directory.appendingPathComponent("AuthKey.p8").path, encoding: .utf8)
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

/// Runs a command line tool (openssl).
func run(_ executable: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = Pipe()
    process.standardError = Pipe()
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw TestFailure("\(executable) exited \(process.terminationStatus)") }
}

extension APNSDelivery {
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] ?? [:] }
    var badge: Int? { (json["aps"] as? [String: Any])?["badge"] as? Int }
}
