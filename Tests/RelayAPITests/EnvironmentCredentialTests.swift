import Foundation
import PostgresStore
@testable import RelayAPI
@testable import RelayStore
import Testing
import TestSupport

/// A credential per APNs environment: `/admin/v1/apps/{app_key}/apns/{environment}` sets,
/// shows and removes one; the path without an environment addresses both; the statements
/// behind them read by index.
@Suite struct EnvironmentCredentialTests {
    static func tokenBody(keyID: String, pem: String) -> [String: Any] {
        ["auth": "token", "key_id": keyID, "team_id": "TEAM123456", "topic": "com.example.trading", "private_key": pem]
    }

    @Test func eachEnvironmentHasItsOwnCredential() async throws {
        let pem = try CredentialTests.Material.make().read("token.p8")
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let base = "/admin/v1/apps/\(app.key)/apns"
            #expect(try await relay.request("GET", base + "/sandbox").status == 404)

            let sandbox = try await relay.request("PUT", base + "/sandbox", json: Self.tokenBody(keyID: "SANDBOX001", pem: pem))
            #expect(sandbox.status == 200)
            #expect(sandbox.json["environment"] as? String == "sandbox")
            #expect(sandbox.json["key_id"] as? String == "SANDBOX001")
            #expect(sandbox.json["auth"] as? String == "token" && sandbox.json["broken_at"] is NSNull)
            #expect(!String(decoding: sandbox.body, as: UTF8.self).contains("PRIVATE KEY"))
            // Only the sandbox has one: the production path says so, both-environments shows the sandbox's.
            let noProduction = try await relay.request("GET", base + "/production")
            #expect(noProduction.status == 404 && noProduction.errorCode == 1008)
            #expect(noProduction.errorMessage?.contains("production") == true)
            let onlySandbox = try await relay.request("GET", base)
            #expect(onlySandbox.status == 200)
            #expect(onlySandbox.json["production"] is NSNull)
            #expect((onlySandbox.json["sandbox"] as? [String: Any])?["key_id"] as? String == "SANDBOX001")
            #expect(onlySandbox.json["environment"] as? String == "sandbox" && onlySandbox.json["key_id"] as? String == "SANDBOX001")

            let production = try await relay.request("PUT", base + "/production", json: Self.tokenBody(keyID: "PRODUCT001", pem: pem))
            #expect(production.status == 200 && production.json["environment"] as? String == "production")
            let both = try await relay.request("GET", base)
            #expect((both.json["sandbox"] as? [String: Any])?["key_id"] as? String == "SANDBOX001")
            #expect((both.json["production"] as? [String: Any])?["key_id"] as? String == "PRODUCT001")
            // At the top, as before credentials were per environment: the default (production) one's.
            #expect(both.json["environment"] as? String == "production" && both.json["key_id"] as? String == "PRODUCT001")
            let shownApp = try await relay.request("GET", "/admin/v1/apps/\(app.key)")
            #expect(((shownApp.json["apns"] as? [String: Any])?["sandbox"] as? [String: Any])?["key_id"] as? String == "SANDBOX001")
            #expect(!String(decoding: both.body + shownApp.body, as: UTF8.self).contains("PRIVATE KEY"))
            #expect(try await relay.request("GET", base + "/sandbox").json["key_id"] as? String == "SANDBOX001")

            // Removing one leaves the other.
            let deleted = try await relay.request("DELETE", base + "/sandbox")
            #expect(deleted.status == 200 && deleted.json["environment"] as? String == "sandbox")
            #expect(try await relay.request("GET", base + "/sandbox").status == 404)
            #expect(try await relay.request("DELETE", base + "/sandbox").status == 404)
            #expect(try await relay.request("GET", base + "/production").json["key_id"] as? String == "PRODUCT001")

            // The path without an environment sets both, and removes both.
            let shared = try await relay.request("PUT", base, json: Self.tokenBody(keyID: "SHARED0001", pem: pem))
            #expect(shared.status == 200)
            #expect((shared.json["sandbox"] as? [String: Any])?["key_id"] as? String == "SHARED0001")
            #expect((shared.json["production"] as? [String: Any])?["key_id"] as? String == "SHARED0001")
            let rows = try await relay.pool.query("""
                SELECT c.environment, c.key_id, c.sealed_secret FROM apns_credentials c JOIN apps a ON a.id = c.app_id
                WHERE a.app_key = $1 ORDER BY c.environment
                """, [app.key])
            #expect(try rows.map { try $0.string("environment") } == ["production", "sandbox"])
            let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            for row in rows {
                let sealed = String(decoding: try row.bytes("sealed_secret"), as: UTF8.self)
                #expect(!sealed.contains("PRIVATE KEY") && !sealed.contains(String(body.prefix(20))), "sealed at rest")
            }
            let repository = CredentialRepository(pool: relay.pool, box: relay.secretBox)
            for environment in DeviceEnvironment.allCases {
                let opened = try #require(try await repository.secretMaterial(appKey: app.key, environment: environment))
                #expect(String(decoding: opened, as: UTF8.self).contains(String(body.prefix(20))))
            }
            #expect(try await relay.request("DELETE", base).status == 200)
            #expect(try await relay.request("GET", base + "/production").status == 404)
            #expect(try await relay.request("GET", base + "/sandbox").status == 404)
            #expect(try await relay.request("GET", base).status == 404)
        }
    }

    @Test func environmentRoutesRefuseWhatTheyShould() async throws {
        let pem = try CredentialTests.Material.make().read("token.p8")
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let base = "/admin/v1/apps/\(app.key)/apns"
            let body = try JSONSerialization.data(withJSONObject: Self.tokenBody(keyID: "SANDBOX001", pem: pem))
            for method in ["PUT", "GET", "DELETE"] {
                // The admin token, first.
                let anonymous = try await relay.request(method, base + "/sandbox", auth: .none, body: method == "PUT" ? body : nil)
                #expect(anonymous.status == 401 && anonymous.errorCode == 1004, "\(method)")
                let wrongToken = try await relay.request(method, base + "/sandbox", auth: .bearer("not-the-token"), body: method == "PUT" ? body : nil)
                #expect(wrongToken.status == 401, "\(method)")
                // Only sandbox and production are environments.
                for name in ["staging", "Production", "sandbox%20", "%20"] {
                    let bad = try await relay.request(method, base + "/" + name, body: method == "PUT" ? body : nil)
                    #expect(bad.status == 404 && bad.errorCode == 7010, "\(method) \(name): \(String(decoding: bad.body, as: UTF8.self))")
                    #expect(bad.errorMessage?.contains("sandbox or production") == true, "\(method) \(name)")
                }
            }
            #expect(try await relay.request("GET", base).status == 404, "nothing was stored")
            // An unknown app, and a bad body.
            let noApp = try await relay.request("PUT", "/admin/v1/apps/0123456789abcdef01234567/apns/sandbox", body: body)
            #expect(noApp.status == 404 && noApp.errorCode == 1008)
            let noAppGet = try await relay.request("GET", "/admin/v1/apps/0123456789abcdef01234567/apns/production")
            #expect(noAppGet.status == 404 && noAppGet.errorCode == 1008)
            let badBody = try await relay.request("PUT", base + "/sandbox", json: Self.tokenBody(keyID: "lower", pem: pem))
            #expect(badBody.status == 400 && badBody.errorMessage?.contains("key_id") == true)
            let missingDelete = try await relay.request("DELETE", base + "/production")
            #expect(missingDelete.status == 404 && missingDelete.errorCode == 1008)
        }
    }

    /// Each environment's single credential of before migration 0030 is kept, as the
    /// credential of both environments, sealed as it was, broken or not as it was.
    @Test func theMigrationGivesEachCredentialToBothEnvironments() async throws {
        let pool = PostgresPool(configuration: PostgresPoolConfiguration(connectionString: try await TestDatabase.fresh(), size: 2),
                                logger: TestDatabase.quietLogger)
        try await withStopping(pool, stop: { await $0.close() }, migrate)
    }

    private func migrate(_ pool: PostgresPool) async throws {
        do {
            let logger = TestDatabase.quietLogger
            _ = try await Migrator.migrate(pool, migrations: EmbeddedMigrations.all.filter { $0.version < 30 }, logger: logger)
            try await pool.query("""
                INSERT INTO apps (app_key, name, secret_hash)
                VALUES ('0123456789abcdef0123456a', 'a', 'h'), ('0123456789abcdef0123456b', 'b', 'h'), ('0123456789abcdef0123456c', 'c', 'h')
                """)
            try await pool.query("""
                INSERT INTO apns_credentials (app_id, auth, topic, key_id, team_id, certificate_expires_at, certificate_subject,
                                              sealed_secret, updated_at, broken_at, broken_reason)
                SELECT id, 'token', 'com.a', 'KEYAAAAAAA', 'TEAMAAAAAA', NULL::timestamptz, NULL, '\\x0a0b'::bytea,
                       '2026-01-02 03:04:05+00'::timestamptz, NULL::timestamptz, NULL
                FROM apps WHERE name = 'a'
                UNION ALL
                SELECT id, 'certificate', 'com.b', NULL, NULL, '2027-01-01 00:00:00+00', 'CN=b', '\\x0c0d'::bytea,
                       '2026-02-03 04:05:06+00', '2026-03-01 00:00:00+00', 'BadCertificate'
                FROM apps WHERE name = 'b'
                """)
            let columns = """
                a.name, c.auth, c.topic, c.key_id, c.team_id, c.certificate_expires_at::text, c.certificate_subject,
                encode(c.sealed_secret, 'hex') AS sealed, c.updated_at::text, c.broken_at::text, c.broken_reason
                """
            func rows(_ condition: String) async throws -> [[String?]] {
                try await pool.query("SELECT \(columns) FROM apns_credentials c JOIN apps a ON a.id = c.app_id \(condition) ORDER BY a.name")
                    .map { row in ["name", "auth", "topic", "key_id", "team_id", "certificate_expires_at", "certificate_subject", "sealed",
                                   "updated_at", "broken_at", "broken_reason"].map { row[$0] } }
            }
            let before = try await rows("")
            #expect(before.count == 2)
            _ = try await Migrator.migrate(pool, logger: logger)
            #expect(try await rows("WHERE c.environment = 'production'") == before)
            #expect(try await rows("WHERE c.environment = 'sandbox'") == before)
            #expect(try await pool.query("SELECT count(*) AS n FROM apns_credentials")[0].int("n") == 4, "app c still has none")
            // Every writer names the environment now: no default to fall back on.
            await #expect(throws: (any Error).self) {
                try await pool.query("""
                    INSERT INTO apns_credentials (app_id, auth, topic, key_id, team_id, sealed_secret)
                    SELECT id, 'token', 'com.c', 'KEYCCCCCCC', 'TEAMCCCCCC', '\\x00'::bytea FROM apps WHERE name = 'c'
                    """)
            }
        }
    }

    /// With sequential scans off (a missing index shows up as one), each statement of the
    /// credential routes and the dashboard finds an app's credentials through the primary key.
    @Test func credentialStatementsReadByIndex() async throws {
        try await RelayHarness.with { relay in
            let statements: [(String, String, [(any PostgresBindable)?])] = [
                ("store", CredentialStatements.store.text, ["0123456789abcdef01234567", "{sandbox,production}", "token", "com.x", "K", "T",
                                                          nil, nil, [UInt8]([1])]),
                ("metadata", CredentialStatements.metadata.text, ["0123456789abcdef01234567", "{sandbox}"]),
                ("delete", CredentialStatements.delete.text, ["0123456789abcdef01234567", "{sandbox,production}"]),
                ("dashboard", DashboardAppStatements.one.text, ["0123456789abcdef01234567"]),
            ]
            for (name, sql, parameters) in statements {
                let plan = try await relay.pool.withConnection { connection in
                    try connection.transaction { connection in
                        try connection.query("SET LOCAL enable_seqscan = off")
                        return try connection.query("EXPLAIN " + sql, parameters).map { try $0.string("QUERY PLAN") }.joined(separator: "\n")
                    }
                }
                #expect(!plan.contains("Seq Scan"), "\(name): \(plan)")
                #expect(plan.contains("apps_app_key_key"), "\(name): \(plan)")
                if name != "store" { #expect(plan.contains("apns_credentials_pkey"), "\(name): \(plan)") }
            }
        }
    }
}
