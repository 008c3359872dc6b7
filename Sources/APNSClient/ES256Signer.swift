import CSystem
import Foundation

/// A P-256 private key that makes ES256 signatures in the raw `r‖s` form JWTs use.
///
/// Thread rule: the key is only read after loading; OpenSSL allows concurrent signing with
/// one `EVP_PKEY`, and each signature uses its own `EVP_MD_CTX`.
public final class ES256Signer: @unchecked Sendable {
    private let key: OpaquePointer

    /// Loads a PEM private key (the `.p8` file Apple hands out is PKCS#8 PEM).
    ///
    /// - Throws: `APNSCredentialError.badKey` when the PEM is not a P-256 private key.
    public init(pem: String) throws {
        let bytes = Array(pem.utf8)
        let loaded: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        ERR_clear_error()
        guard let loaded else { throw APNSCredentialError.badKey("not a PEM private key") }
        guard CSystem_EVP_PKEY_is_P256(loaded) == 1 else {
            EVP_PKEY_free(loaded)
            throw APNSCredentialError.badKey("not a P-256 key")
        }
        key = loaded
    }

    deinit { EVP_PKEY_free(key) }

    /// Signs `message` with ECDSA P-256 / SHA-256.
    ///
    /// - Returns: the 64-byte `r‖s` signature, each half big-endian and left-padded to 32 bytes.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw APNSCredentialError.signingFailed }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            ERR_clear_error()
            throw APNSCredentialError.signingFailed
        }
        var der = [UInt8](repeating: 0, count: 80)
        var derLength = der.count
        guard EVP_DigestSign(context, &der, &derLength, message, message.count) == 1 else {
            ERR_clear_error()
            throw APNSCredentialError.signingFailed
        }
        return try ES256Signer.rawSignature(fromDER: Array(der[0..<derLength]))
    }

    /// Converts OpenSSL's DER `ECDSA-Sig-Value` into the raw `r‖s` a JWT carries.
    static func rawSignature(fromDER der: [UInt8]) throws -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw APNSCredentialError.signingFailed }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { out in
            BN_bn2binpad(r, out.baseAddress, 32) + BN_bn2binpad(s, out.baseAddress! + 32, 32)
        }
        guard written == 64 else { throw APNSCredentialError.signingFailed }
        return raw
    }
}

/// A credential that cannot be used.
public enum APNSCredentialError: Error, Sendable, Hashable, CustomStringConvertible {
    case badKey(String)
    case badCertificate(String)
    case signingFailed

    public var description: String {
        switch self {
        case let .badKey(detail): "bad signing key: \(detail)"
        case let .badCertificate(detail): "bad client certificate: \(detail)"
        case .signingFailed: "ES256 signing failed"
        }
    }
}
