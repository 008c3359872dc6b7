import Foundation
import Testing
@testable import RelayCrypto

/// The service-account key file as the Firebase console downloads it: checked field by field.
@Suite struct FCMServiceAccountTests {
    private static let key = Result { try RS256Signer.generateKeyPEM() }

    private static func file(_ changes: [String: Any?] = [:]) throws -> [UInt8] {
        var object: [String: Any] = [
            "type": "service_account", "project_id": "demo-project", "private_key_id": "0123abcd",
            "private_key": try key.get(), "client_email": "firebase-adminsdk@demo-project.iam.gserviceaccount.com",
            "client_id": "1234567890", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": "https://oauth2.googleapis.com/token",
        ]
        for (name, value) in changes { object[name] = value }
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    private static func refusal(_ changes: [String: Any?]) throws -> String? {
        let bytes = try file(changes)
        do {
            _ = try FCMServiceAccount.parse(bytes)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func aConsoleFileParsesAndRoundTrips() throws {
        let account = try FCMServiceAccount.parse(try Self.file())
        #expect(account.projectID == "demo-project")
        #expect(account.clientEmail == "firebase-adminsdk@demo-project.iam.gserviceaccount.com")
        #expect(account.privateKeyID == "0123abcd")
        #expect(account.tokenURI == "https://oauth2.googleapis.com/token")
        #expect(account.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try FCMServiceAccount.parse(account.json) == account)
    }

    @Test func eachWrongFieldIsNamed() throws {
        #expect(try Self.refusal(["type": "authorized_user"])?.contains("service_account") == true)
        #expect(try Self.refusal(["project_id": nil]) == "project_id is missing")
        #expect(try Self.refusal(["project_id": "a/b"])?.hasPrefix("project_id may hold only") == true)
        #expect(try Self.refusal(["client_email": ""]) == "client_email is empty")
        #expect(try Self.refusal(["client_email": 7]) == "client_email must be a string")
        #expect(try Self.refusal(["token_uri": "http://example.com/token"]) == "token_uri must be an https:// URL")
        #expect(try Self.refusal(["private_key": "garbage"]) == "private_key is not a PEM private key")
        #expect(try FCMServiceAccount.parse(Self.file(["token_uri": nil])).tokenURI == FCMServiceAccount.googleTokenURI)
        #expect(throws: CredentialError.self) { try FCMServiceAccount.parse(Array("[]".utf8)) }
    }

    @Test func anECKeyIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ec.pem"], in: directory)
        #expect(try Self.refusal(["private_key": try directory.read("ec.pem")])?.contains("RSA") == true)
    }

    @Test func signaturesVerifyAgainstThePublicKeyOnly() throws {
        let signer = try RS256Signer(pem: try Self.key.get())
        let verifier = try RS256Verifier(publicKeyPEM: try #require(signer.publicKeyPEM))
        let message = Array("header.claims".utf8)
        let signature = try signer.sign(message)
        #expect(signature.count == 256)
        #expect(verifier.isValid(signature: signature, for: message))
        #expect(!verifier.isValid(signature: signature, for: Array("header.claimz".utf8)))
        let other = try RS256Verifier(publicKeyPEM: try #require(RS256Signer(pem: RS256Signer.generateKeyPEM()).publicKeyPEM))
        #expect(!other.isValid(signature: signature, for: message))
    }
}
