import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPServer
import PostgresStore
import RelayAPI
import RelayCore
import RelayCrypto
import TestSupport

/// A relay API on 127.0.0.1 (port 0) over a fresh, migrated database, and a small HTTP
/// client for it.
final class RelayHarness: Sendable {
    static let adminToken = "test-admin-token-0123456789"

    let pool: PostgresPool
    let server: HTTPServer
    let port: Int
    let secretBox: SecretBox
    let router: Router

    private init(pool: PostgresPool, server: HTTPServer, port: Int, secretBox: SecretBox, router: Router) {
        self.pool = pool
        self.server = server
        self.port = port
        self.secretBox = secretBox
        self.router = router
    }

    static func start(connectionString: String? = nil, maxBodySize: Int = 1 << 20,
                      rateLimits: RateLimitSettings = RateLimitSettings(),
                      logger: Logger = TestDatabase.quietLogger,
                      tune: (inout RelayAPIDependencies) -> Void = { _ in }) async throws -> RelayHarness {
        let url: String
        if let connectionString { url = connectionString } else { url = try await TestDatabase.fresh() }
        var poolConfiguration = PostgresPoolConfiguration(connectionString: url, size: 4)
        poolConfiguration.acquireTimeout = .seconds(2)
        let pool = PostgresPool(configuration: poolConfiguration, logger: TestDatabase.quietLogger)
        _ = try await Migrator.migrate(pool, logger: TestDatabase.quietLogger)
        let box = try SecretBox(key: SecureRandom.bytes(32))
        var dependencies = RelayAPIDependencies(pool: pool, secretBox: box, adminToken: adminToken,
                                                logger: logger, authCacheTTL: .seconds(60))
        dependencies.rateLimits = rateLimits
        tune(&dependencies)
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.threads = 2
        configuration.maxBodySize = maxBodySize
        let router = RelayAPI.router(dependencies)
        let server = HTTPServer(configuration: configuration, responder: router, logger: logger)
        let port = try server.start()
        return RelayHarness(pool: pool, server: server, port: port, secretBox: box, router: router)
    }

    /// Runs `body` against a fresh relay and always stops it afterwards.
    static func with(maxBodySize: Int = 1 << 20, rateLimits: RateLimitSettings = RateLimitSettings(),
                     logger: Logger = TestDatabase.quietLogger,
                     tune: (inout RelayAPIDependencies) -> Void = { _ in },
                     _ body: (RelayHarness) async throws -> Void) async throws {
        let relay = try await start(maxBodySize: maxBodySize, rateLimits: rateLimits, logger: logger, tune: tune)
        do {
            try await body(relay)
        } catch {
            await relay.stop()
            throw error
        }
        await relay.stop()
    }

    func stop() async {
        await server.shutdown()
        await pool.close()
    }

    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var errorCode: Int? { (json["error"] as? [String: Any])?["code"] as? Int }
        var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }
    }

    enum Auth: Sendable {
        case none
        case admin
        case bearer(String)
        case basic(String, String)
    }

    func request(_ method: String, _ path: String, auth: Auth = .admin, body: Data? = nil,
                 headers: [String: String] = [:]) async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body
        switch auth {
        case .none: break
        case .admin: request.setValue("Bearer \(Self.adminToken)", forHTTPHeaderField: "Authorization")
        case .bearer(let token): request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        case .basic(let user, let password):
            request.setValue("Basic " + Data("\(user):\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        }
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields[String(describing: name).lowercased()] = String(describing: value) }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }

    func request(_ method: String, _ path: String, auth: Auth = .admin, json: Any) async throws -> Reply {
        try await request(method, path, auth: auth, body: try JSONSerialization.data(withJSONObject: json))
    }

    /// Creates an app through the admin API and returns its key and master secret.
    func createApp(_ name: String = "test app") async throws -> (key: String, secret: String) {
        let reply = try await request("POST", "/admin/v1/apps", json: ["name": name])
        guard reply.status == 201, let key = reply.json["app_key"] as? String, let secret = reply.json["master_secret"] as? String else {
            throw HarnessError("app creation failed: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return (key, secret)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a command line tool (openssl) and returns its standard output.
@discardableResult
func run(_ executable: String, _ arguments: [String], in directory: URL? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = Pipe()
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw HarnessError("\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)") }
    return String(decoding: data, as: UTF8.self)
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
