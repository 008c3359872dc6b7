import Foundation
import RelayCrypto
@testable import RelayStore
import Testing
@testable import RelayAPI

/// FCM credentials: the Firebase service-account key file as the body, checked, sealed at
/// rest, shown as metadata only, removable.
@Suite struct FCMCredentialTests {
    private static let key = Result { try RS256Signer.generateKeyPEM() }

    static func keyFile(_ changes: [String: Any?] = [:]) throws -> Data {
        var object: [String: Any] = [
            "type": "service_account", "project_id": "shop-demo", "private_key_id": "4f1e2d",
            "private_key": try key.get(), "client_email": "firebase-adminsdk-x1@shop-demo.iam.gserviceaccount.com",
            "client_id": "10987654321", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": "https://oauth2.googleapis.com/token", "universe_domain": "googleapis.com",
        ]
        for (name, value) in changes { object[name] = value }
        return try JSONSerialization.data(withJSONObject: object)
    }

    @Test func keyFileRoundTripsSealedAndIsNeverShown() async throws {
        let file = try Self.keyFile()
        let pem = try Self.key.get()
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let put = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/fcm", body: file)
            #expect(put.status == 200)
            #expect(put.json["project_id"] as? String == "shop-demo")
            #expect(put.json["client_email"] as? String == "firebase-adminsdk-x1@shop-demo.iam.gserviceaccount.com")
            #expect(put.json["private_key_id"] as? String == "4f1e2d")
            #expect(put.json["token_uri"] as? String == "https://oauth2.googleapis.com/token")
            #expect(put.json["broken_at"] is NSNull)

            let get = try await relay.request("GET", "/admin/v1/apps/\(app.key)/fcm")
            #expect(get.status == 200 && get.json["project_id"] as? String == "shop-demo")
            for answer in [put, get] { #expect(!String(decoding: answer.body, as: UTF8.self).contains("PRIVATE KEY")) }

            // Sealed at rest, and bound to this app.
            let row = try await relay.pool.query(
                "SELECT sealed_secret FROM fcm_credentials c JOIN apps a ON a.id = c.app_id WHERE a.app_key = $1", [app.key])
            let sealed = try row[0].bytes("sealed_secret")
            let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            #expect(!String(decoding: sealed, as: UTF8.self).contains("PRIVATE KEY"))
            #expect(!String(decoding: sealed, as: UTF8.self).contains(String(body.prefix(20))))
            let opened = try relay.secretBox.open(sealed, associatedData: FCMCredentialRepository.associatedData(appKey: app.key))
            #expect(try FCMServiceAccount.parse(opened).projectID == "shop-demo")
            #expect(throws: (any Error).self) {
                try relay.secretBox.open(sealed, associatedData: FCMCredentialRepository.associatedData(appKey: "another-app"))
            }

            let appReply = try await relay.request("GET", "/admin/v1/apps/\(app.key)")
            #expect((appReply.json["fcm"] as? [String: Any])?["project_id"] as? String == "shop-demo")

            // A new upload replaces it.
            let again = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/fcm", body: try Self.keyFile(["project_id": "shop-prod"]))
            #expect(again.json["project_id"] as? String == "shop-prod")

            #expect(try await relay.request("DELETE", "/admin/v1/apps/\(app.key)/fcm").status == 200)
            let gone = try await relay.request("GET", "/admin/v1/apps/\(app.key)/fcm")
            #expect(gone.status == 404 && gone.errorCode == 1008)
            #expect(try await relay.request("DELETE", "/admin/v1/apps/\(app.key)/fcm").status == 404)
            #expect(try await relay.request("GET", "/admin/v1/apps/\(app.key)").json["fcm"] is NSNull)
            #expect(try await relay.request("PUT", "/admin/v1/apps/000000000000000000000000/fcm", body: file).status == 404)
        }
    }

    @Test func wrongKeyFilesSayWhyWithoutTheKey() async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let ecKey = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n"
            let cases: [([String: Any?], String)] = [
                (["type": "authorized_user"], "service_account"),
                (["project_id": nil], "project_id"),
                (["client_email": nil], "client_email"),
                (["private_key": "not a key"], "private_key"),
                (["private_key": ecKey], "private_key"),
            ]
            for (changes, needle) in cases {
                let reply = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/fcm", body: try Self.keyFile(changes))
                #expect(reply.status == 400 && reply.errorCode == 1003, "\(changes)")
                #expect(reply.errorMessage?.contains(needle) == true, "\(reply.errorMessage ?? "") should name \(needle)")
                #expect(reply.errorMessage?.contains("PRIVATE KEY") == false)
            }
            let notJSON = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/fcm", body: Data("key=value".utf8))
            #expect(notJSON.status == 400 && notJSON.errorMessage?.contains("JSON object") == true)
            #expect(try await relay.request("GET", "/admin/v1/apps/\(app.key)/fcm").status == 404, "nothing was stored")
        }
    }
}
