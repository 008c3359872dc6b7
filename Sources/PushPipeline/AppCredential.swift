import APNSClient
import Foundation
import PostgresStore
import RelayCore
import RelayCrypto

/// An app's APNs credential for one environment as the workers need it: the topic, whether
/// APNs refused it, and (unsealed only when a client must be built) the key or certificate.
struct AppCredential: Sendable, Equatable {
    var appID: Int64
    var appKey: String
    /// `sandbox` or `production`: each has its own credential (migration 0030).
    var environment: String
    var topic: String
    /// `updated_at`: a new upload changes it, and the cached clients are rebuilt.
    var version: String
    var isBroken: Bool
    var auth: String
    var keyID: String?
    var teamID: String?
    var sealedSecret: [UInt8]

    /// The sealed material is bound to the app key (`CredentialRepository` seals it so).
    static func associatedData(appKey: String) -> [UInt8] { Array("apns-credential:\(appKey)".utf8) }

    /// Opens the secret and says how to authenticate with it.
    func authentication(box: SecretBox) throws -> APNSClientConfiguration.Authentication {
        let secret = try box.open(sealedSecret, associatedData: Self.associatedData(appKey: appKey))
        guard let sealed = try? JSONDecoder().decode(SealedSecret.self, from: Data(secret)) else {
            throw CredentialUnusable("the sealed credential has no private_key")
        }
        let key = sealed.privateKey
        if auth == "certificate" {
            guard let certificate = sealed.certificate else {
                throw CredentialUnusable("the sealed certificate credential has no certificate")
            }
            return .certificate(certificatePEM: certificate, keyPEM: key)
        }
        guard let keyID, let teamID else { throw CredentialUnusable("a token credential needs key_id and team_id") }
        return .token(keyPEM: key, keyID: keyID, teamID: teamID)
    }

    /// What `CredentialRepository` seals: the PEM key, and the certificate of a certificate credential.
    private struct SealedSecret: Decodable {
        var privateKey: String
        var certificate: String?

        enum CodingKeys: String, CodingKey { case privateKey = "private_key", certificate }
    }

    /// Marks the credential broken (only the version that was refused: a newer upload stays
    /// good) and wakes nobody: the chunks of the app's messages to this environment wait until
    /// a new credential is uploaded; the other environment's go on.
    func markBroken(reason: String, on connection: PostgresConnection) throws {
        try connection.preparedQuery(LeaseStatements.markCredentialBroken, [appID, environment, version, reason])
    }
}

struct CredentialUnusable: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension AppCredential {
    /// The credential in a row of `app_key, environment, auth, topic, key_id, team_id,
    /// sealed_secret, version, broken` (`LoadedChunk` reads it with the chunk's message).
    init(row: PostgresRow, appID: Int64) throws {
        self.init(
            appID: appID, appKey: try row.string("app_key"), environment: try row.string("environment"), topic: try row.string("topic"),
            version: try row.string("version"),
            isBroken: try row.bool("broken"), auth: try row.string("auth"), keyID: row["key_id"], teamID: row["team_id"],
            sealedSecret: try row.bytes("sealed_secret"))
    }
}
