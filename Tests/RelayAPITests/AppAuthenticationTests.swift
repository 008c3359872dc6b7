import Foundation
import Testing
@testable import RelayAPI

@Suite struct AppAuthenticationTests {
    @Test func basicAuthRotationAndDeletion() async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp("trading")
            #expect(app.key.count == 24 && AppKey.isWellFormed(app.key))

            let ok = try await relay.request("GET", "/v3/push/cid?count=3", auth: .basic(app.key, app.secret))
            #expect(ok.status == 200)
            let list = ok.json["cidlist"] as? [String] ?? []
            #expect(list.count == 3 && list.allSatisfy { $0.hasPrefix(app.key + "-") })

            let wrong = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret + "x"))
            #expect(wrong.status == 401)
            #expect(wrong.errorCode == 1004)

            let missing = try await relay.request("GET", "/v3/push/cid", auth: .none)
            #expect(missing.status == 401 && missing.errorCode == 1004)

            let rotated = try await relay.request("POST", "/admin/v1/apps/\(app.key)/secret")
            #expect(rotated.status == 200)
            let newSecret = try #require(rotated.json["master_secret"] as? String)
            #expect(newSecret != app.secret)
            let old = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret))
            #expect(old.status == 401, "the old secret must stop working as soon as it is rotated")
            let new = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, newSecret))
            #expect(new.status == 200)

            let deleted = try await relay.request("DELETE", "/admin/v1/apps/\(app.key)")
            #expect(deleted.status == 200)
            let afterDelete = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, newSecret))
            #expect(afterDelete.status == 401)
            let gone = try await relay.request("GET", "/admin/v1/apps/\(app.key)")
            #expect(gone.status == 404 && gone.errorCode == 1008)
        }
    }

    @Test func secretsAreStoredHashed() async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let row = try await relay.pool.query("SELECT secret_hash FROM apps WHERE app_key = $1", [app.key])
            let stored = try row[0].string("secret_hash")
            #expect(!stored.contains(app.secret))
            #expect(stored.hasPrefix("sha256$"))
            // The secret is shown once: listing and reading an app never shows it.
            let listed = try await relay.request("GET", "/admin/v1/apps")
            #expect(!String(decoding: listed.body, as: UTF8.self).contains(app.secret))
            let shown = try await relay.request("GET", "/admin/v1/apps/\(app.key)")
            #expect(shown.json["master_secret"] == nil)
            #expect(shown.json["name"] as? String == "test app")
        }
    }

    @Test func adminRoutesNeedTheAdminToken() async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            for auth: RelayHarness.Auth in [.none, .bearer("wrong-token-wrong-token"), .basic(app.key, app.secret), .bearer(app.secret)] {
                let reply = try await relay.request("GET", "/admin/v1/apps", auth: auth)
                #expect(reply.status == 401)
                #expect(reply.errorCode == 1004)
            }
            let create = try await relay.request("POST", "/admin/v1/apps", auth: .none, json: ["name": "x"])
            #expect(create.status == 401)
        }
    }

    @Test func oneAppsKeyOpensNothingOfAnother() async throws {
        try await RelayHarness.with { relay in
            let a = try await relay.createApp("A")
            let b = try await relay.createApp("B")
            // A's secret with B's key, and B's with A's: both refused.
            #expect(try await relay.request("GET", "/v3/push/cid", auth: .basic(b.key, a.secret)).status == 401)
            #expect(try await relay.request("GET", "/v3/push/cid", auth: .basic(a.key, b.secret)).status == 401)
            // What A gets is A's: its ids carry A's key, never B's.
            let reply = try await relay.request("GET", "/v3/push/cid?count=5", auth: .basic(a.key, a.secret))
            let ids = reply.json["cidlist"] as? [String] ?? []
            #expect(ids.count == 5 && ids.allSatisfy { $0.hasPrefix(a.key) && !$0.contains(b.key) })
            // Rotating B's secret leaves A untouched.
            #expect(try await relay.request("POST", "/admin/v1/apps/\(b.key)/secret").status == 200)
            #expect(try await relay.request("GET", "/v3/push/cid", auth: .basic(a.key, a.secret)).status == 200)
            // Deleting B leaves A untouched.
            #expect(try await relay.request("DELETE", "/admin/v1/apps/\(b.key)").status == 200)
            #expect(try await relay.request("GET", "/v3/push/cid", auth: .basic(a.key, a.secret)).status == 200)
            #expect(try await relay.request("GET", "/admin/v1/apps/\(a.key)").status == 200)
        }
    }

    @Test(arguments: [
        "Basic", "Basic !!!!", "Bearer abc", "Basic " + Data("nocolon".utf8).base64EncodedString(),
        "Basic " + Data("short:secret".utf8).base64EncodedString(),
    ])
    func malformedAuthorizationIs401(_ header: String) async throws {
        try await RelayHarness.with { relay in
            let reply = try await relay.request("GET", "/v3/push/cid", auth: .none, headers: ["Authorization": header])
            #expect(reply.status == 401)
            #expect(reply.errorCode == 1004)
        }
    }

    @Test func basicCredentialsParse() {
        let header = "Basic " + Data("key:sec:ret".utf8).base64EncodedString()
        #expect(BasicCredentials(authorization: header) == BasicCredentials(user: "key", password: "sec:ret"))
        #expect(BasicCredentials(authorization: "basic " + Data("a:b".utf8).base64EncodedString()) == BasicCredentials(user: "a", password: "b"))
        #expect(BasicCredentials(authorization: nil) == nil)
        #expect(BasicCredentials(authorization: "Digest abc") == nil)
    }

    @Test func controlCharactersInCredentialsAreRefused() {
        for pair in ["key:secret\u{0}", "key:sec\u{0}ret", "key\u{0}:secret", "key:secret\n", "key:secret\u{7F}", "key:\u{85}secret"] {
            #expect(BasicCredentials(authorization: "Basic " + Data(pair.utf8).base64EncodedString()) == nil, "\(pair.debugDescription)")
        }
    }
}
