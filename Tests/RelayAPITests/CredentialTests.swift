import Foundation
@testable import RelayStore
import Testing
import TestSupport
@testable import RelayAPI

/// APNs credentials: validated on upload, sealed at rest, never shown back.
@Suite struct CredentialTests {
    /// Keys and certificates made with the `openssl` command line.
    struct Material {
        let directory: URL
        func read(_ name: String) throws -> String { try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8) }

        static func make() throws -> Material {
            let directory = try temporaryDirectory()
            let openssl = "/usr/bin/openssl"
            try TestProcess.runBlocking(openssl, ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "token.p8"], in: directory)
            try TestProcess.runBlocking(openssl, ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "rsa.pem"], in: directory)
            try TestProcess.runBlocking(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "cert-key.pem", "-out", "cert.pem",
                                        "-days", "30", "-subj", "/UID=com.example.trading/CN=Apple Push Services: com.example.trading"], in: directory)
            try TestProcess.runBlocking(openssl, ["pkcs12", "-export", "-in", "cert.pem", "-inkey", "cert-key.pem", "-out", "cert.p12",
                                        "-passout", "pass:s3cret"], in: directory)
            return Material(directory: directory)
        }
    }

    @Test func tokenKeyRoundTripsSealedAndIsNeverShown() async throws {
        let material = try Material.make()
        let pem = try material.read("token.p8")
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let put = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/apns", json: [
                "auth": "token", "key_id": "ABC123DEFG", "team_id": "TEAM123456", "topic": "com.example.trading", "private_key": pem,
            ])
            #expect(put.status == 200)
            #expect(put.json["auth"] as? String == "token")
            #expect(put.json["key_id"] as? String == "ABC123DEFG")
            #expect(put.json["team_id"] as? String == "TEAM123456")
            #expect(put.json["private_key"] == nil)

            let get = try await relay.request("GET", "/admin/v1/apps/\(app.key)/apns")
            #expect(get.status == 200)
            let shown = String(decoding: get.body, as: UTF8.self)
            #expect(!shown.contains("PRIVATE KEY"))
            let appReply = try await relay.request("GET", "/admin/v1/apps/\(app.key)")
            #expect((appReply.json["apns"] as? [String: Any])?["topic"] as? String == "com.example.trading")

            // What is stored is sealed: neither the PEM nor its base64 body appears in the row.
            let row = try await relay.pool.query(
                "SELECT sealed_secret, encode(sealed_secret, 'escape') AS text FROM apns_credentials c JOIN apps a ON a.id = c.app_id WHERE a.app_key = $1",
                [app.key])
            let sealed = try row[0].bytes("sealed_secret")
            let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            #expect(!String(decoding: sealed, as: UTF8.self).contains("PRIVATE KEY"))
            #expect(!String(decoding: sealed, as: UTF8.self).contains(String(body.prefix(20))))

            // And it opens back to the same key, for this app only.
            let repository = CredentialRepository(pool: relay.pool, box: relay.secretBox)
            let opened = try #require(try await repository.secretMaterial(appKey: app.key, environment: .production))
            let material = try JSONSerialization.jsonObject(with: Data(opened)) as? [String: String]
            #expect(material?["private_key"]?.contains(String(body.prefix(20))) == true)
            #expect(throws: (any Error).self) {
                try relay.secretBox.open(sealed, associatedData: CredentialRepository.associatedData(appKey: "another-app"))
            }
        }
    }

    @Test func certificatesAsPEMAndAsP12() async throws {
        let material = try Material.make()
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let pem = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/apns", json: [
                "auth": "certificate", "topic": "com.example.trading",
                "certificate": try material.read("cert.pem"), "private_key": try material.read("cert-key.pem"),
            ])
            #expect(pem.status == 200)
            #expect(pem.json["auth"] as? String == "certificate")
            #expect(pem.json["certificate_expires_at"] as? String != nil)

            let p12 = try Data(contentsOf: material.directory.appendingPathComponent("cert.p12")).base64EncodedString()
            let good = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/apns", json: [
                "auth": "certificate", "topic": "com.example.trading", "p12": p12, "password": "s3cret",
            ])
            #expect(good.status == 200)
            let wrongPassword = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/apns", json: [
                "auth": "certificate", "topic": "com.example.trading", "p12": p12, "password": "nope",
            ])
            #expect(wrongPassword.status == 400 && wrongPassword.errorCode == 1003)
            #expect(wrongPassword.errorMessage?.contains("password") == true)
        }
    }

    @Test func uploadsThatAreWrongSayWhy() async throws {
        let material = try Material.make()
        let p8 = try material.read("token.p8")
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let path = "/admin/v1/apps/\(app.key)/apns"
            let token: [String: Any] = ["auth": "token", "key_id": "ABC123DEFG", "team_id": "TEAM123456", "topic": "com.example.trading"]

            let rsa = try await relay.request("PUT", path, json: token.merging(["private_key": try material.read("rsa.pem")]) { $1 })
            #expect(rsa.status == 400 && rsa.errorCode == 1003)
            let garbage = try await relay.request("PUT", path, json: token.merging(["private_key": "not a key"]) { $1 })
            #expect(garbage.status == 400 && garbage.errorCode == 1003)
            let badKeyID = try await relay.request("PUT", path, json: token.merging(["private_key": p8, "key_id": "abc"]) { $1 })
            #expect(badKeyID.status == 400 && badKeyID.errorMessage?.contains("key_id") == true)
            let noTopic = try await relay.request("PUT", path, json: token.merging(["private_key": p8, "topic": ""]) { $1 })
            #expect(noTopic.status == 400)
            let unknownAuth = try await relay.request("PUT", path, json: token.merging(["private_key": p8, "auth": "magic"]) { $1 })
            #expect(unknownAuth.status == 400 && unknownAuth.errorMessage?.contains("auth") == true)
            let extra = try await relay.request("PUT", path, json: token.merging(["private_key": p8, "certificate": "x"]) { $1 })
            #expect(extra.status == 400 && extra.errorCode == 1009)
            let mismatched = try await relay.request("PUT", path, json: [
                "auth": "certificate", "topic": "com.example.trading",
                "certificate": try material.read("cert.pem"), "private_key": try material.read("rsa.pem"),
            ])
            #expect(mismatched.status == 400 && mismatched.errorCode == 1003)
            // Nothing was stored by any of these.
            #expect(try await relay.request("GET", path).status == 404)
            // An unknown app is a 404, even with a valid credential.
            let noApp = try await relay.request("PUT", "/admin/v1/apps/0123456789abcdef01234567/apns",
                                                json: token.merging(["private_key": p8]) { $1 })
            #expect(noApp.status == 404 && noApp.errorCode == 1008)
        }
    }

    @Test func deletingTheCredential() async throws {
        let material = try Material.make()
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let path = "/admin/v1/apps/\(app.key)/apns"
            #expect(try await relay.request("PUT", path, json: [
                "auth": "token", "key_id": "ABC123DEFG", "team_id": "TEAM123456", "topic": "com.example.trading",
                "private_key": try material.read("token.p8"),
            ]).status == 200)
            #expect(try await relay.request("DELETE", path).status == 200)
            #expect(try await relay.request("GET", path).status == 404)
            #expect(try await relay.request("DELETE", path).status == 404)
        }
    }
}
