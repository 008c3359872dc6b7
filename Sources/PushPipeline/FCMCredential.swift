import Foundation
import PostgresStore
import RelayCrypto

/// An app's FCM credential as the workers need it: whether FCM (or its token endpoint)
/// refused it, and (opened only when a client must be built) the service-account key file.
/// FCM has no environments: one per app (migration 0039).
struct FCMCredential: Sendable, Equatable {
    var appID: Int64
    var appKey: String
    /// `updated_at`: a new upload changes it, and the cached client is rebuilt.
    var version: String
    var isBroken: Bool
    var sealedSecret: [UInt8]

    /// The sealed key file is bound to the app key (`FCMCredentialRepository` seals it so).
    static func associatedData(appKey: String) -> [UInt8] { Array("fcm-credential:\(appKey)".utf8) }

    /// Opens the key file and checks it again.
    func account(box: SecretBox) throws -> FCMServiceAccount {
        let json = try box.open(sealedSecret, associatedData: Self.associatedData(appKey: appKey))
        do {
            return try FCMServiceAccount.parse(json)
        } catch {
            throw CredentialUnusable("the sealed service account does not parse: \(error.message)")
        }
    }

    /// Marks the credential broken (only the version that was refused: a newer upload stays
    /// good): the app's Android chunks wait until a new one is uploaded.
    func markBroken(reason: String, on connection: PostgresConnection) throws {
        try connection.preparedQuery(LeaseStatements.markFCMCredentialBroken, [appID, version, reason])
    }
}
