import APNSClient
import Foundation
import RelayCore
import RelayStore

/// An app's APNs credential for one environment as channels need it: a token (.p8) key.
/// Apple's channel management and broadcasts also take a certificate, but Live Activities
/// are token-only here as everywhere in the relay, so a certificate-only app is told so.
struct ChannelCredential: Sendable {
    var bundleID: String
    var authentication: APNSClientConfiguration.Authentication
    /// Changes with every upload: a client made with an older key is not reused.
    var version: String

    /// - Throws: `JPushError` 400 when the app has no credential in `environment`, or only a certificate.
    static func load(appKey: String, environment: DeviceEnvironment, from credentials: CredentialRepository) async throws -> ChannelCredential {
        guard let metadata = try await credentials.metadata(appKey: appKey, environments: [environment]).first else {
            throw JPushError.illegalValue("the app has no APNs credential for \(environment.rawValue): "
                + "Live Activity channels need a token (.p8) credential (PUT /admin/v1/apps/{app_key}/apns)")
        }
        guard metadata.auth == APNSCredential.Auth.token.rawValue, let keyID = metadata.keyID, let teamID = metadata.teamID else {
            throw JPushError.illegalValue("the app's APNs credential for \(environment.rawValue) is a certificate: "
                + "Live Activity channels need a token (.p8) credential")
        }
        guard let secret = try await credentials.secretMaterial(appKey: appKey, environment: environment),
              let sealed = try? JSONDecoder().decode(SealedKey.self, from: Data(secret)) else {
            throw JPushError.internalError("the app's APNs key cannot be opened")
        }
        return ChannelCredential(bundleID: metadata.topic, authentication: .token(keyPEM: sealed.privateKey, keyID: keyID, teamID: teamID),
                                 version: metadata.updatedAt)
    }

    /// What `CredentialRepository` seals for a token credential.
    private struct SealedKey: Decodable {
        var privateKey: String

        enum CodingKeys: String, CodingKey { case privateKey = "private_key" }
    }
}
