import Foundation
@testable import RelayAPI

/// Helpers for the device-registry tests: random tokens, and one app's Basic credentials.
struct DeviceClient {
    let relay: RelayHarness
    let key: String
    let secret: String

    static func make(_ relay: RelayHarness, name: String = "devices app") async throws -> DeviceClient {
        let app = try await relay.createApp(name)
        return DeviceClient(relay: relay, key: app.key, secret: app.secret)
    }

    static func randomToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    func request(_ method: String, _ path: String, json: Any? = nil) async throws -> RelayHarness.Reply {
        if let json { return try await relay.request(method, path, auth: .basic(key, secret), json: json) }
        return try await relay.request(method, path, auth: .basic(key, secret))
    }

    /// Registers a token and returns its registration id; fails the test on anything but 200.
    func register(token: String = randomToken(), environment: String = "production", extra: [String: Any] = [:]) async throws -> String {
        var body: [String: Any] = ["platform": "ios", "token": token, "environment": environment]
        body.merge(extra) { $1 }
        let reply = try await request("POST", "/v3/devices", json: body)
        guard reply.status == 200, let rid = reply.json["registration_id"] as? String else {
            throw HarnessError("registration failed: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return rid
    }

    /// `GET /v3/devices/{rid}` as (tags, alias, mobile).
    func info(_ rid: String) async throws -> (tags: [String], alias: String?, mobile: String?) {
        let reply = try await request("GET", "/v3/devices/\(rid)")
        guard reply.status == 200 else { throw HarnessError("device info failed: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))") }
        return ((reply.json["tags"] as? [String]) ?? [], reply.json["alias"] as? String, reply.json["mobile"] as? String)
    }

    /// The admin view of one device.
    func adminDevice(_ rid: String) async throws -> [String: Any]? {
        let reply = try await relay.request("GET", "/admin/v1/apps/\(key)/devices?limit=1000")
        return (reply.json["devices"] as? [[String: Any]])?.first { $0["registration_id"] as? String == rid }
    }
}
