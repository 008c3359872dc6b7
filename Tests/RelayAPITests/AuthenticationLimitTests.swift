import Foundation
import HTTPServer
import RelayCore
import RelayCrypto
import Synchronization
import Testing
@testable import RelayAPI

/// The failure limits and the equal-work rule of every credential check, through a running relay.
@Suite struct AuthenticationLimitTests {
    static let limits = RateLimitSettings(defaultPerMinute: 1000, authFailuresPerMinute: 3, tokenFailureDelay: .milliseconds(300))

    /// The limits count in minute windows of the relay's clock: a test that crossed the end of
    /// a wall-clock minute would start counting again. Here the clock stands mid-minute.
    static func midMinute(_ dependencies: inout RelayAPIDependencies) {
        let now = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 + 30)
        dependencies.clock = { now }
    }

    /// Behind a trusted proxy each client behind it has its own counter; without one, no
    /// header lets a client out of its own.
    @Test func forwardedClientsAreCountedApartOnlyBehindTrustedProxies() async throws {
        try await RelayHarness.with(rateLimits: Self.limits, tune: { Self.midMinute(&$0); $0.trustedProxies = [IPNetwork("127.0.0.1")!] }) { relay in
            let app = try await relay.createApp()
            let attacker = ["X-Forwarded-For": "9.9.9.9, 198.51.100.66"]
            var last = 0
            for _ in 0..<4 {
                last = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, "wrong"), headers: attacker).status
            }
            #expect(last == 429)
            let spoofed = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret),
                                                  headers: ["X-Forwarded-For": "203.0.113.1, 198.51.100.66"])
            #expect(spoofed.status == 429, "what the client wrote left of the proxy's entry is not believed")
            let other = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret), headers: ["X-Forwarded-For": "198.51.100.67"])
            #expect(other.status == 200, "another client behind the same proxy is not locked out")
        }
        try await RelayHarness.with(rateLimits: Self.limits, tune: Self.midMinute) { relay in
            let app = try await relay.createApp()
            for n in 0..<4 {
                _ = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, "wrong"), headers: ["X-Forwarded-For": "198.51.100.\(n)"])
            }
            let reply = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret), headers: ["X-Forwarded-For": "198.51.100.99"])
            #expect(reply.status == 429, "no trusted proxy: X-Forwarded-For is ignored")
        }
    }

    /// A client trying a fresh app key each time (each an unknown key's slow hash) runs into
    /// its address's budget over every key; an app whose credentials were verified recently
    /// from that address goes on, one not seen yet waits for the next minute.
    @Test func freshKeysEachTimeRunIntoTheAddressBudget() async throws {
        let limits = RateLimitSettings(defaultPerMinute: 1000, authFailuresPerMinute: 100, secretFailuresPerMinutePerAddress: 3)
        try await RelayHarness.with(rateLimits: limits, tune: Self.midMinute) { relay in
            let warm = try await relay.createApp("already talking")
            let cold = try await relay.createApp("first request after the flood")
            #expect(try await relay.request("GET", "/v3/push/cid", auth: .basic(warm.key, warm.secret)).status == 200)
            var statuses: [Int] = []
            for n in 0..<4 {
                let key = String(format: "%024x", 0xabc000 + n)
                statuses.append(try await relay.request("GET", "/v3/push/cid", auth: .basic(key, "guess")).status)
            }
            #expect(statuses == [401, 401, 401, 429], "\(statuses)")
            #expect(try await relay.request("GET", "/v3/push/cid", auth: .basic(warm.key, warm.secret)).status == 200)
            let refused = try await relay.request("GET", "/v3/push/cid", auth: .basic(cold.key, cold.secret))
            #expect(refused.status == 429 && refused.headers["retry-after"] != nil)
        }
    }

    /// Wrong admin tokens wait for their 401 and, past the limit, get 429 with Retry-After
    /// even with the right token; the dashboard login shares that counter.
    @Test func adminTokenGuessesAreSlowedAndLimited() async throws {
        try await RelayHarness.with(rateLimits: Self.limits, tune: Self.midMinute) { relay in
            let started = ContinuousClock.now
            let wrong = try await relay.request("GET", "/admin/v1/apps", auth: .bearer("wrong-token-wrong-token"))
            #expect(wrong.status == 401)
            #expect(ContinuousClock.now - started >= .milliseconds(300), "a wrong token waits for its answer")
            _ = try await relay.request("GET", "/admin/v1/apps", auth: .bearer("wrong-token-wrong-token"))
            let login = try await relay.router.respond(to: try Self.loginRequest(token: "still-wrong", peer: "127.0.0.1:1"))
            #expect(login.status == 401)
            let limited = try await relay.request("GET", "/admin/v1/apps")
            #expect(limited.status == 429 && limited.errorCode == 2002)
            #expect(Int(limited.headers["retry-after"] ?? "").map { (1...60).contains($0) } == true)
            let page = await relay.router.respond(to: try Self.loginRequest(token: RelayHarness.adminToken, peer: "127.0.0.1:1"))
            #expect(page.status == 429 && page.headers["retry-after"] != nil, "the login form is limited with the admin API")
            let elsewhere = await relay.router.respond(to: try Self.loginRequest(token: RelayHarness.adminToken, peer: "192.0.2.5:1"))
            #expect(elsewhere.status == 303, "another address logs in")
        }
    }

    static func loginRequest(token: String, peer: String) throws -> HTTPRequest {
        try HTTPRequest(method: "POST", uri: "/dashboard/login", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                        body: Array("token=\(token)".utf8), remoteAddress: peer)
    }

    /// An unknown app key runs the slow hash once, as a wrong secret does; malformed
    /// credentials, which say nothing about which keys exist, run none.
    @Test func anUnknownAppKeyCostsTheSameSlowHashAsAWrongSecret() async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let calls = Atomic<Int>(0)
            let authenticator = AppAuthenticator(pool: relay.pool, slowWork: SlowWork(width: 1), cacheTTL: .zero) { secret, stored in
                calls.add(1, ordering: .relaxed)
                return SecretHasher.verify(secret, against: stored)
            }
            let failure = JPushError.authenticationFailed()
            func count(_ credentials: BasicCredentials?) async -> Int {
                calls.store(0, ordering: .relaxed)
                _ = try? await authenticator.authenticate(credentials, failure: failure)
                return calls.load(ordering: .relaxed)
            }
            #expect(await count(BasicCredentials(user: String(repeating: "a", count: 24), password: "guess")) == 1)
            #expect(await count(BasicCredentials(user: app.key, password: "guess")) == 1)
            #expect(await count(BasicCredentials(user: app.key, password: app.secret)) == 1)
            #expect(await count(BasicCredentials(user: "not-a-key", password: "guess")) == 0)
            #expect(await count(nil) == 0)
        }
    }

    /// With a token, `/metrics` asks everyone for it; without, it answers this machine only.
    @Test func metricsNeedTheTokenOrALoopbackClient() async throws {
        let token = "metrics-token-0123456789"
        try await RelayHarness.with(rateLimits: Self.limits, tune: { Self.midMinute(&$0); $0.metricsToken = token }) { relay in
            #expect(try await relay.request("GET", "/metrics", auth: .none).status == 401)
            #expect(try await relay.request("GET", "/metrics", auth: .admin).status == 401, "the admin token is not the metrics token")
            let scraped = try await relay.request("GET", "/metrics", auth: .bearer(token))
            #expect(scraped.status == 200 && String(decoding: scraped.body, as: UTF8.self).contains("pushrelay_http_requests_total"))
            _ = try await relay.request("GET", "/metrics", auth: .none)
            #expect(try await relay.request("GET", "/metrics", auth: .bearer(token)).status == 429, "guesses are limited")
        }
        try await RelayHarness.with { relay in
            #expect(try await relay.request("GET", "/metrics", auth: .none).status == 200, "127.0.0.1 is this machine")
            let proxied = try await relay.request("GET", "/metrics", auth: .none, headers: ["X-Forwarded-For": "203.0.113.4"])
            #expect(proxied.status == 403, "a proxy on this machine forwards the world")
            let remote = await relay.router.respond(to: try HTTPRequest(method: "GET", uri: "/metrics", remoteAddress: "203.0.113.4:5000"))
            #expect(remote.status == 403)
        }
    }

    @Test func metricsAccessVerdicts() {
        let open = MetricsAccess(token: nil)
        #expect(open.verdict(peer: "127.0.0.1:80", headers: [:]) == .allowed)
        #expect(open.verdict(peer: "[::1]:80", headers: [:]) == .allowed)
        #expect(open.verdict(peer: "[::ffff:127.0.0.1]:80", headers: [:]) == .allowed)
        #expect(open.verdict(peer: "10.0.0.1:80", headers: [:]) == .notLoopback)
        #expect(open.verdict(peer: "127.0.0.1:80", headers: ["Forwarded": "for=10.0.0.1"]) == .notLoopback)
        let tokened = MetricsAccess(token: "abcdefghijklmnop")
        #expect(tokened.verdict(peer: "10.0.0.1:80", headers: ["Authorization": "Bearer abcdefghijklmnop"]) == .allowed)
        #expect(tokened.verdict(peer: "127.0.0.1:80", headers: [:]) == .wrongToken, "a token is asked of loopback clients too")
        #expect(tokened.verdict(peer: "10.0.0.1:80", headers: ["Authorization": "Bearer abcdefghijklmnoq"]) == .wrongToken)
    }
}
