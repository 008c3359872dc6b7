import Foundation
import HTTPServer
import PostgresStore
import TestSupport
import Testing
@testable import RelayAPI
@testable import RelayStore

/// Dashboard sessions end at logout on every API node, and with the admin token.
@Suite struct DashboardSessionTests {
    static func request(_ method: String, _ uri: String, cookie: String? = nil, form: String? = nil) throws -> HTTPRequest {
        var headers = HTTPHeaders()
        if let cookie { headers.add(name: "Cookie", value: cookie) }
        if form != nil { headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded") }
        return try HTTPRequest(method: method, uri: uri, headers: headers, body: Array((form ?? "").utf8), remoteAddress: "127.0.0.1:1")
    }

    @Test func logoutEndsTheSessionOnEveryNode() async throws {
        let url = try await TestDatabase.fresh()
        let first = try await RelayHarness.start(connectionString: url)
        let second = try await RelayHarness.start(connectionString: url)
        let rotated = try await RelayHarness.start(connectionString: url, tune: { $0.adminToken = "another-admin-token-0123456789" })
        do {
            let login = await first.router.respond(to: try Self.request("POST", "/dashboard/login", form: "token=\(RelayHarness.adminToken)"))
            #expect(login.status == 303)
            let cookie = try #require(login.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
            for node in [first, second] {
                #expect(await node.router.respond(to: try Self.request("GET", "/dashboard", cookie: cookie)).status == 200)
            }
            #expect(await rotated.router.respond(to: try Self.request("GET", "/dashboard", cookie: cookie)).status == 303,
                    "a node with another admin token does not take the session")

            let value = String(cookie.dropFirst(DashboardSession.cookieName.count + 1))
            let key = DashboardSession.Key(adminToken: RelayHarness.adminToken)
            let session = try #require(DashboardSession.verify(value, key: key, now: Date()))
            let logout = await first.router.respond(to: try Self.request("POST", "/dashboard/logout", cookie: cookie,
                                                                         form: "csrf=\(session.csrfToken(key))"))
            #expect(logout.status == 303)
            for node in [first, second] {
                let after = await node.router.respond(to: try Self.request("GET", "/dashboard", cookie: cookie))
                #expect(after.status == 303 && after.headers["Location"] == "/dashboard/login", "the old cookie is no session after logout")
                let api = await node.router.respond(to: try Self.request("GET", "/dashboard/api/messages/1", cookie: cookie))
                #expect(api.status == 401)
            }
        } catch {
            for relay in [first, second, rotated] { await relay.stop() }
            throw error
        }
        for relay in [first, second, rotated] { await relay.stop() }
    }

    /// The session statements look a session up by its primary key.
    @Test func sessionStatementsUseThePrimaryKey() async throws {
        try await RelayHarness.with { relay in
            for statement in [DashboardSessionStatements.isOpen.text, DashboardSessionStatements.close.text, AppAuthenticator.credentialsSQL] {
                let query = statement.replacingOccurrences(of: "$1", with: "'x'")
                let plan = try await relay.pool.withConnection { connection in
                    try connection.transaction { connection in
                        try connection.query("SET LOCAL enable_seqscan = off")
                        return try connection.query("EXPLAIN " + query).map { try $0.string("QUERY PLAN") }.joined(separator: "\n")
                    }
                }
                #expect(!plan.contains("Seq Scan") && plan.contains("Index"), "\(query)\n\(plan)")
            }
        }
    }
}
