import Foundation
@testable import RelayAPI
import RelayCore
import Synchronization
import Testing

/// Client keys (issue 28): issued, listed and revoked by the admin API; they register
/// devices and nothing else, and a device's secret acts for that device alone.
@Suite struct ClientKeyTests {
    /// An app's client key and its Basic credentials.
    struct ClientApp {
        let device: DeviceClient
        let clientKey: String
        let keyID: String
        var relay: RelayHarness { device.relay }

        static func make(_ relay: RelayHarness) async throws -> ClientApp {
            let device = try await DeviceClient.make(relay)
            let reply = try await relay.request("POST", "/admin/v1/apps/\(device.key)/client-keys", json: ["name": "ios app"])
            guard reply.status == 201, let key = reply.json["client_key"] as? String, let id = reply.json["id"] as? String else {
                throw HarnessError("client key: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
            }
            return ClientApp(device: device, clientKey: key, keyID: id)
        }

        func register(token: String = DeviceClient.randomToken(), key: String? = nil, platform: String = "ios",
                      headers: [String: String] = [:]) async throws -> RelayHarness.Reply {
            try await relay.request("POST", "/client/v1/devices", auth: .bearer(key ?? clientKey),
                                    body: try JSONSerialization.data(withJSONObject: ["platform": platform, "token": token, "environment": "sandbox"]),
                                    headers: headers)
        }

        /// Registers and returns (registration id, device secret); fails unless 200.
        func registered(token: String = DeviceClient.randomToken()) async throws -> (rid: String, secret: String) {
            let reply = try await register(token: token)
            guard reply.status == 200, let rid = reply.json["registration_id"] as? String, let secret = reply.json["device_secret"] as? String else {
                throw HarnessError("client registration: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
            }
            return (rid, secret)
        }
    }

    static let generous = RateLimitSettings(clientRegistrationsPerMinutePerKey: 1000, clientRegistrationsPerMinutePerAddress: 1000)

    @Test func keysAreIssuedOnceListedWithoutSecretAndRevokedAtOnce() async throws {
        try await RelayHarness.with(rateLimits: Self.generous) { relay in
            let app = try await ClientApp.make(relay)
            #expect(app.clientKey.hasPrefix("ck_\(app.keyID)_"))
            let list = try await relay.request("GET", "/admin/v1/apps/\(app.device.key)/client-keys")
            #expect(list.status == 200)
            let keys = list.json["client_keys"] as? [[String: Any]] ?? []
            #expect(keys.count == 1)
            #expect(keys.first?["id"] as? String == app.keyID)
            #expect(keys.first?["name"] as? String == "ios app")
            #expect(keys.first?["client_key"] == nil)
            #expect(!String(decoding: list.body, as: UTF8.self).contains(String(app.clientKey.suffix(32))))

            let (rid, _) = try await app.registered()
            #expect(rid.count == 32)
            let used = try await relay.request("GET", "/admin/v1/apps/\(app.device.key)/client-keys")
            #expect((used.json["client_keys"] as? [[String: Any]])?.first?["last_used_at"] is String)

            let revoked = try await relay.request("DELETE", "/admin/v1/apps/\(app.device.key)/client-keys/\(app.keyID)")
            #expect(revoked.status == 200)
            #expect(revoked.json["revoked_at"] is String)
            let refused = try await app.register()
            #expect(refused.status == 401)
            #expect(refused.errorCode == 7004)

            #expect(try await relay.request("DELETE", "/admin/v1/apps/\(app.device.key)/client-keys/0123456789abcdef").status == 404)
            #expect(try await relay.request("GET", "/admin/v1/apps/000000000000000000000000/client-keys").status == 404)
            #expect(try await relay.request("POST", "/admin/v1/apps/\(app.device.key)/client-keys", json: ["name": " "]).status == 400)
            // A wrong secret behind a real key id, and garbage, are 401 too.
            #expect(try await app.register(key: "ck_\(app.keyID)_" + String(repeating: "0", count: 32)).status == 401)
            #expect(try await app.register(key: "nonsense").status == 401)
            #expect(try await relay.request("POST", "/client/v1/devices", auth: .none, json: [:]).status == 401)
        }
    }

    @Test func aClientKeyRegistersWithTheRulesOfV3DevicesAndNothingMore() async throws {
        try await RelayHarness.with(rateLimits: Self.generous) { relay in
            let app = try await ClientApp.make(relay)
            let token = DeviceClient.randomToken()
            let first = try await app.registered(token: token)
            let again = try await app.registered(token: token)
            #expect(again.rid == first.rid)
            #expect(again.secret != first.secret)
            // The earlier secret was replaced.
            let stale = try await relay.request("DELETE", "/client/v1/devices/\(first.rid)", auth: .bearer(first.secret))
            #expect(stale.status == 403)

            let badToken = try await app.register(token: "xyz")
            #expect(badToken.status == 400)
            #expect(badToken.errorCode == 7002)
            let android = try await app.register(token: "fcm:token-1", platform: "android")
            #expect(android.status == 200)
            let alias = try await relay.request("POST", "/client/v1/devices", auth: .bearer(app.clientKey),
                                                json: ["platform": "ios", "token": DeviceClient.randomToken(), "environment": "sandbox", "alias": "bob"])
            #expect(alias.status == 400)
            #expect(alias.errorMessage?.contains("alias cannot be set from a device") == true)

            // A client key can never push, read reports, or see devices.
            let rid = again.rid
            for (method, path) in [("POST", "/v3/push"), ("GET", "/v3/devices/\(rid)"), ("POST", "/v3/devices"), ("GET", "/v3/received?msg_ids=1"),
                                   ("GET", "/v3/tags"), ("GET", "/admin/v1/apps/\(app.device.key)/devices"), ("GET", "/admin/v1/apps")] {
                let bearer = try await relay.request(method, path, auth: .bearer(app.clientKey))
                #expect(bearer.status == 401, "\(method) \(path)")
                #expect(bearer.errorCode != nil, "\(method) \(path)")
                if path.hasPrefix("/v3") {
                    #expect(try await relay.request(method, path, auth: .basic(app.device.key, app.clientKey)).status == 401, "\(method) \(path)")
                }
            }
            // Nor act as a device.
            #expect(try await relay.request("DELETE", "/client/v1/devices/\(rid)", auth: .bearer(app.clientKey)).status == 403)
        }
    }

    @Test func aDeviceSecretActsForItsOwnDeviceOnly() async throws {
        try await RelayHarness.with(rateLimits: Self.generous) { relay in
            let app = try await ClientApp.make(relay)
            let mine = try await app.registered()
            let theirs = try await app.registered()
            let other = try await ClientApp.make(relay)
            let foreign = try await other.registered()

            for (method, rid) in [("PATCH", theirs.rid), ("DELETE", theirs.rid), ("PATCH", foreign.rid), ("DELETE", foreign.rid),
                                  ("PATCH", "0123456789abcdef0123456789abcdef"), ("DELETE", "nonsense")] {
                let reply = try await relay.request(method, "/client/v1/devices/\(rid)", auth: .bearer(mine.secret), json: ["environment": "production"])
                #expect(reply.status == 403, "\(method) \(rid)")
                #expect(reply.errorCode == 7004, "\(method) \(rid)")
            }
            #expect(try await relay.request("PATCH", "/client/v1/devices/\(mine.rid)", auth: .none, json: ["environment": "production"]).status == 401)

            let newToken = DeviceClient.randomToken()
            let changed = try await relay.request("PATCH", "/client/v1/devices/\(mine.rid)", auth: .bearer(mine.secret),
                                                  json: ["token": newToken.uppercased(), "environment": "production"])
            #expect(changed.status == 200)
            let row = try await relay.pool.query("SELECT token, environment, active FROM devices WHERE registration_id = $1::uuid", [mine.rid])[0]
            #expect(row["token"] == newToken)
            #expect(row["environment"] == "production")
            let theirRow = try await relay.pool.query("SELECT environment FROM devices WHERE registration_id = $1::uuid", [theirs.rid])[0]
            #expect(theirRow["environment"] == "sandbox")

            let alias = try await relay.request("PATCH", "/client/v1/devices/\(mine.rid)", auth: .bearer(mine.secret), json: ["alias": "alice"])
            #expect(alias.status == 400)
            #expect(alias.errorCode == 7002)
            let bad = try await relay.request("PATCH", "/client/v1/devices/\(mine.rid)", auth: .bearer(mine.secret), json: ["environment": "staging"])
            #expect(bad.status == 400)

            let gone = try await relay.request("DELETE", "/client/v1/devices/\(mine.rid)", auth: .bearer(mine.secret))
            #expect(gone.status == 200)
            let after = try await relay.pool.query("SELECT active, invalidation_reason FROM devices WHERE registration_id = $1::uuid", [mine.rid])[0]
            #expect(after["active"] == "f")
            #expect(after["invalidation_reason"] == "Unregistered")
            #expect(try await relay.request("DELETE", "/client/v1/devices/\(mine.rid)", auth: .bearer(mine.secret)).status == 403)
            // The other devices are untouched.
            #expect(try await relay.request("DELETE", "/client/v1/devices/\(theirs.rid)", auth: .bearer(theirs.secret)).status == 200)
        }
    }

    /// `client_may_set_alias` (off by default): only when the admin turns it on may a device
    /// set its own alias and tags, with `POST /v3/devices/{rid}`'s rules; registrations never.
    @Test func aDeviceSetsItsAliasAndTagsOnlyWhenItsAppAllowsIt() async throws {
        try await RelayHarness.with(rateLimits: Self.generous) { relay in
            let app = try await ClientApp.make(relay)
            let other = try await ClientApp.make(relay)
            let mine = try await app.registered()
            let theirs = try await other.registered()
            let labels: [String: Any] = ["alias": "alice", "tags": ["add": ["vip"]]]
            let shown = try await relay.request("GET", "/admin/v1/apps/\(app.device.key)")
            #expect(shown.json["client_may_set_alias"] as? Bool == false)
            let refused = try await relay.request("PATCH", "/client/v1/devices/\(mine.rid)", auth: .bearer(mine.secret), json: labels)
            #expect(refused.status == 400 && refused.errorCode == 7002)
            #expect(refused.errorMessage?.contains("client_may_set_alias") == true)

            let on = try await relay.request("PUT", "/admin/v1/apps/\(app.device.key)/client-settings", json: ["client_may_set_alias": true])
            #expect(on.status == 200)
            #expect(on.json["client_may_set_alias"] as? Bool == true)
            #expect(try await relay.request("GET", "/admin/v1/apps/\(app.device.key)").json["client_may_set_alias"] as? Bool == true)
            let set = try await relay.request("PATCH", "/client/v1/devices/\(mine.rid)", auth: .bearer(mine.secret), json: labels)
            #expect(set.status == 200)
            let info = try await app.device.info(mine.rid)
            #expect(info.alias == "alice" && info.tags == ["vip"])
            // With a token change in the same call; the rules of POST /v3/devices/{rid}.
            let both = try await relay.request("PATCH", "/client/v1/devices/\(mine.rid)", auth: .bearer(mine.secret),
                                               json: ["environment": "production", "alias": "", "tags": ["add": ["a"], "remove": ["vip"]]])
            #expect(both.status == 200)
            let after = try await app.device.info(mine.rid)
            #expect(after.alias == nil && after.tags == ["a"])
            for bad in [["alias": 7], ["tags": ["add": ["x"], "remove": ["x"]]], ["mobile": "123"], ["badge": -1]] as [[String: Any]] {
                let reply = try await relay.request("PATCH", "/client/v1/devices/\(mine.rid)", auth: .bearer(mine.secret), json: bad)
                #expect(reply.status == 400 && reply.errorCode == 7002, "\(bad)")
            }
            // A registration still may not, and another app's devices still may not.
            let registering = try await relay.request("POST", "/client/v1/devices", auth: .bearer(app.clientKey),
                                                      json: ["platform": "ios", "token": DeviceClient.randomToken(), "environment": "sandbox", "alias": "x"])
            #expect(registering.status == 400)
            #expect(try await relay.request("PATCH", "/client/v1/devices/\(theirs.rid)", auth: .bearer(theirs.secret), json: labels).status == 400)

            let off = try await relay.request("PUT", "/admin/v1/apps/\(app.device.key)/client-settings", json: ["client_may_set_alias": false])
            #expect(off.json["client_may_set_alias"] as? Bool == false)
            #expect(try await relay.request("PATCH", "/client/v1/devices/\(mine.rid)", auth: .bearer(mine.secret), json: labels).status == 400)
            for bad in [[:], ["client_may_set_alias": "yes"], ["client_may_set_alias": true, "other": 1]] as [[String: Any]] {
                #expect(try await relay.request("PUT", "/admin/v1/apps/\(app.device.key)/client-settings", json: bad).status == 400, "\(bad)")
            }
            let unknown = try await relay.request("PUT", "/admin/v1/apps/000000000000000000000000/client-settings", json: ["client_may_set_alias": true])
            #expect(unknown.status == 404)
        }
    }

    /// A device resets its own stored badge (what "+N" pushes count from), whatever the app's
    /// client_may_set_alias.
    @Test func aDeviceResetsItsOwnBadge() async throws {
        try await RelayHarness.with(rateLimits: Self.generous) { relay in
            let app = try await ClientApp.make(relay)
            let mine = try await app.registered()
            let theirs = try await app.registered()
            try await relay.pool.query("UPDATE devices SET badge = 5")
            let reset = try await relay.request("PATCH", "/client/v1/devices/\(mine.rid)", auth: .bearer(mine.secret), json: ["badge": 0])
            #expect(reset.status == 200)
            let badges = try await relay.pool.query("SELECT registration_id::text AS rid, badge FROM devices WHERE registration_id IN ($1::uuid, $2::uuid)",
                                                    [mine.rid, theirs.rid])
            let byRID = Dictionary(uniqueKeysWithValues: try badges.map { (try $0.string("rid").replacingOccurrences(of: "-", with: ""), try $0.int("badge")) })
            #expect(byRID[mine.rid] == 0 && byRID[theirs.rid] == 5)
            #expect(try await relay.request("PATCH", "/client/v1/devices/\(mine.rid)", auth: .bearer(mine.secret), json: ["badge": "0"]).status == 400)
        }
    }

    @Test func registrationsAreLimitedPerKey() async throws {
        let limits = RateLimitSettings(clientRegistrationsPerMinutePerKey: 3, clientRegistrationsPerMinutePerAddress: 1000)
        try await RelayHarness.with(rateLimits: limits, tune: AuthenticationLimitTests.midMinute) { relay in
            let app = try await ClientApp.make(relay)
            let other = try await ClientApp.make(relay)
            for _ in 0..<3 { #expect(try await app.register().status == 200) }
            let refused = try await app.register()
            #expect(refused.status == 429)
            #expect(refused.errorCode == 2002)
            #expect(refused.headers["x-rate-limit-remaining"] == "0")
            // Another key goes on.
            #expect(try await other.register().status == 200)
        }
    }

    @Test func registrationsAreLimitedPerAddress() async throws {
        let limits = RateLimitSettings(clientRegistrationsPerMinutePerKey: 1000, clientRegistrationsPerMinutePerAddress: 3)
        try await RelayHarness.with(rateLimits: limits, tune: { AuthenticationLimitTests.midMinute(&$0); $0.trustedProxies = [IPNetwork("127.0.0.1")!] }) { relay in
            let app = try await ClientApp.make(relay)
            let other = try await ClientApp.make(relay)
            let phone = ["X-Forwarded-For": "203.0.113.7"]
            for _ in 0..<2 { #expect(try await app.register(headers: phone).status == 200) }
            #expect(try await other.register(headers: phone).status == 200)
            #expect(try await other.register(headers: phone).status == 429)
            #expect(try await app.register(headers: phone).status == 429)
            // Another address goes on, through the same key.
            #expect(try await app.register(headers: ["X-Forwarded-For": "203.0.113.8"]).status == 200)
        }
    }

    /// Neither a client key nor a device secret reaches the log, at any level, whatever the
    /// request (issued, used, refused, revoked).
    @Test func secretsNeverReachTheLog() async throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "test", level: .trace, sink: { line in lines.withLock { $0.append(line) } })
        var secrets: [String] = []
        try await RelayHarness.with(rateLimits: Self.generous, logger: logger) { relay in
            let app = try await ClientApp.make(relay)
            let device = try await app.registered()
            secrets += [String(app.clientKey.suffix(ClientKeyText.secretLength)), device.secret]
            _ = try await relay.request("PATCH", "/client/v1/devices/\(device.rid)", auth: .bearer(device.secret), json: ["environment": "production"])
            _ = try await relay.request("PATCH", "/client/v1/devices/\(device.rid)", auth: .bearer(device.secret), json: ["alias": "x"])
            _ = try await relay.request("DELETE", "/client/v1/devices/0123456789abcdef0123456789abcdef", auth: .bearer(device.secret))
            _ = try await relay.request("DELETE", "/admin/v1/apps/\(app.device.key)/client-keys/\(app.keyID)")
            _ = try await app.register()
            _ = try await relay.request("DELETE", "/client/v1/devices/\(device.rid)", auth: .bearer(device.secret))
        }
        let logged = lines.withLock { $0 }
        #expect(!logged.isEmpty)
        for secret in secrets {
            #expect(!logged.contains { $0.contains(secret) })
        }
    }
}

