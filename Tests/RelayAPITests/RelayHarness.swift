import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPServer
import PostgresStore
import RelayAPI
import RelayCore
import RelayCrypto
import RelayTestSupport
import TestSupport

/// A relay API on 127.0.0.1 (port 0) over a fresh, migrated database (a `TestRelay` without
/// a worker, whose pool, port, router… it shows as its own), and a small HTTP client for it.
@dynamicMemberLookup
final class RelayHarness: Sendable {
    static let adminToken = "test-admin-token-0123456789"

    let relay: TestRelay

    subscript<Value>(dynamicMember keyPath: KeyPath<TestRelay, Value>) -> Value { relay[keyPath: keyPath] }

    private init(relay: TestRelay) {
        self.relay = relay
    }

    static func start(connectionString: String? = nil, maxBodySize: Int = 1 << 20,
                      rateLimits: RateLimitSettings = RateLimitSettings(),
                      logger: Logger = TestDatabase.quietLogger,
                      tune: (inout RelayAPIDependencies) -> Void = { _ in }) async throws -> RelayHarness {
        var settings = TestRelay.Settings(adminToken: adminToken)
        settings.database = connectionString
        settings.acquireTimeout = .seconds(2)
        settings.maxBodySize = maxBodySize
        settings.logger = logger
        return RelayHarness(relay: try await TestRelay.start(settings) { dependencies in
            dependencies.rateLimits = rateLimits
            tune(&dependencies)
        })
    }

    /// Runs `body` against a fresh relay and always stops it afterwards.
    static func with(maxBodySize: Int = 1 << 20, rateLimits: RateLimitSettings = RateLimitSettings(),
                     logger: Logger = TestDatabase.quietLogger,
                     tune: (inout RelayAPIDependencies) -> Void = { _ in },
                     _ body: (RelayHarness) async throws -> Void) async throws {
        try await withStopping(try await start(maxBodySize: maxBodySize, rateLimits: rateLimits, logger: logger, tune: tune),
                               stop: { await $0.stop() }, body)
    }

    func stop() async {
        await relay.stop()
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
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(relay.port)\(path)")!)
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

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
