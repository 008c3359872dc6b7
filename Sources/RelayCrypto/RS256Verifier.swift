import CSystem
import Foundation

/// Checks RS256 signatures against an RSA public key (the FCM simulator's side of the assertion).
///
/// Thread rule: as `RS256Signer`.
public final class RS256Verifier: @unchecked Sendable {
    /// The public key (`PrivateKey` owns any `EVP_PKEY`).
    private let key: PrivateKey

    /// - Parameter publicKeyPEM: a `BEGIN PUBLIC KEY` PEM.
    public init(publicKeyPEM: String) throws(CredentialError) {
        defer { OpenSSLSupport.clearErrors() }
        let parsed = OpenSSLSupport.withReadBIO(Array(publicKeyPEM.utf8)) { PEM_read_bio_PUBKEY($0, nil, nil, nil) }
        guard let parsed, let pointer = parsed else { throw CredentialError("not a PEM public key") }
        key = PrivateKey(taking: pointer)
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_RSA else { throw CredentialError("not an RSA public key") }
    }

    public func isValid(signature: [UInt8], for message: [UInt8]) -> Bool {
        defer { OpenSSLSupport.clearErrors() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}
