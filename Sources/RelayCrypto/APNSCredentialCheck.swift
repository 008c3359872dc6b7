import CSystem
import Foundation

/// Checks what `PUT /admin/v1/apps/{app_key}/apns` uploads before it is stored, so a bad
/// credential fails at upload with a clear message rather than at the first push.
public enum APNSCredentialCheck {
    /// Checks a .p8 token-signing key.
    ///
    /// - Parameter pem: the key as PEM (PKCS#8 as Apple ships it, or the traditional EC form).
    /// - Returns: the key as unencrypted PKCS#8 PEM.
    /// - Throws: when it is not a PEM private key or not on curve P-256.
    public static func tokenKey(pem: String) throws(CredentialError) -> String {
        defer { OpenSSLSupport.clearErrors() }
        let key = try PrivateKey(pem: pem, field: "private_key")
        guard CSystem_EVP_PKEY_is_P256(key.pointer) == 1 else {
            throw CredentialError("private_key is \(key.kindDescription); APNs token keys are P-256 (ES256)")
        }
        guard let normalised = key.pem else { throw CredentialError("private_key could not be re-encoded as PEM") }
        return normalised
    }

    /// Checks a client certificate and its key, both PEM.
    ///
    /// - Parameter now: the time the certificate must be valid at.
    /// - Throws: when either does not parse, the key is not the certificate's, or the
    ///   certificate is expired or not yet valid at `now`.
    public static func certificate(certificatePEM: String, privateKeyPEM: String,
                                   now: Date) throws(CredentialError) -> CertificateInfo {
        defer { OpenSSLSupport.clearErrors() }
        let certificate = try Certificate(pem: certificatePEM)
        let key = try PrivateKey(pem: privateKeyPEM, field: "private_key")
        return try check(certificate, key, now: now)
    }

    /// Checks a PKCS#12 bundle (the .p12 Keychain exports) and converts it to PEM.
    ///
    /// Files encrypted with AES (OpenSSL 3's default) always work; RC2/3DES files (OpenSSL
    /// 1.x, older macOS) need OpenSSL's legacy provider and say so when it is missing.
    ///
    /// - Parameters:
    ///   - der: the file's bytes (base64-decoded by the caller).
    ///   - password: the export password; may be empty.
    ///   - now: the time the certificate must be valid at.
    public static func pkcs12(_ der: [UInt8], password: String, now: Date)
        throws(CredentialError) -> (certificatePEM: String, privateKeyPEM: String, info: CertificateInfo) {
        defer { OpenSSLSupport.clearErrors() }
        guard !der.isEmpty else { throw CredentialError("p12 is empty") }
        let (certificate, key) = try PKCS12Reader.read(der, password: password)
        let info = try check(certificate, key, now: now)
        guard let certificatePEM = certificate.pem, let keyPEM = key.pem else {
            throw CredentialError("p12 contents could not be re-encoded as PEM")
        }
        return (certificatePEM, keyPEM, info)
    }

    /// The checks every certificate upload gets, in the order a user fixes them.
    static func check(_ certificate: Certificate, _ key: PrivateKey, now: Date) throws(CredentialError) -> CertificateInfo {
        guard X509_check_private_key(certificate.pointer, key.pointer) == 1 else {
            OpenSSLSupport.clearErrors()
            throw CredentialError("private_key does not match the certificate")
        }
        let info = try certificate.info()
        if now < info.notBefore {
            throw CredentialError("certificate is not valid before \(info.notBefore.formatted(.iso8601))")
        }
        if now > info.notAfter {
            throw CredentialError("certificate expired on \(info.notAfter.formatted(.iso8601))")
        }
        return info
    }
}
