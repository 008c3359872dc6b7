import CSystem
import Foundation

/// An RSA private key that makes RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256), the
/// signature of the OAuth2 assertions a service account sends to its token endpoint.
///
/// Thread rule: the key is only read after loading; OpenSSL allows concurrent signing with
/// one `EVP_PKEY`, and each signature uses its own `EVP_MD_CTX`.
public final class RS256Signer: @unchecked Sendable {
    private let key: PrivateKey

    /// - Parameter pem: an unencrypted RSA private key, PEM.
    public init(pem: String) throws(CredentialError) {
        defer { OpenSSLSupport.clearErrors() }
        let key = try PrivateKey(pem: pem, field: "private_key")
        guard EVP_PKEY_get_base_id(key.pointer) == EVP_PKEY_RSA else {
            throw CredentialError("private_key is \(key.kindDescription), not RSA")
        }
        self.key = key
    }

    /// Signs `message`.
    ///
    /// - Returns: the signature, as long as the key's modulus.
    public func sign(_ message: [UInt8]) throws(CredentialError) -> [UInt8] {
        defer { OpenSSLSupport.clearErrors() }
        guard let context = EVP_MD_CTX_new() else { throw CredentialError("RS256 signing failed: out of memory") }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pointer) == 1,
              EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw CredentialError("RS256 signing failed")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw CredentialError("RS256 signing failed")
        }
        return Array(signature.prefix(length))
    }

    /// The public half as PEM (SubjectPublicKeyInfo), what a verifier is given.
    public var publicKeyPEM: String? {
        OpenSSLSupport.text { PEM_write_bio_PUBKEY($0, key.pointer) == 1 }
    }
}

extension RS256Signer {
    /// A fresh RSA private key as PKCS#8 PEM: for the simulator's demo service account and tests, never a real one.
    public static func generateKeyPEM(bits: Int32 = 2048) throws(CredentialError) -> String {
        defer { OpenSSLSupport.clearErrors() }
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else { throw CredentialError("cannot generate an RSA key") }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(context, bits) == 1,
              EVP_PKEY_keygen(context, &generated) == 1, let generated else {
            throw CredentialError("cannot generate an RSA key")
        }
        guard let pem = PrivateKey(taking: generated).pem else { throw CredentialError("cannot encode the RSA key") }
        return pem
    }
}
