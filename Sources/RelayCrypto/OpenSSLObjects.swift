import CSystem
import Foundation

/// An owned `EVP_PKEY`, freed with its owner.
///
/// Thread rule: used by one thread at a time, within the call that made it.
final class PrivateKey {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }

    /// Parses a PEM private key (PKCS#8, or the traditional RSA/EC forms).
    ///
    /// - Parameter field: the upload's field name, used in error messages.
    convenience init(pem: String, field: String) throws(CredentialError) {
        let text = pem.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw CredentialError("\(field) is empty") }
        // PKCS#8 ("BEGIN ENCRYPTED PRIVATE KEY") or traditional ("Proc-Type: 4,ENCRYPTED").
        if text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED") {
            throw CredentialError("\(field) is encrypted; upload the key without a passphrase")
        }
        let parsed = OpenSSLSupport.withReadBIO(Array(text.utf8)) { CSystem_PEM_read_PrivateKey_no_passphrase($0) }
        guard let parsed, let pointer = parsed else {
            OpenSSLSupport.clearErrors()
            if text.contains("BEGIN CERTIFICATE") {
                throw CredentialError("\(field) is a certificate, not a PEM private key")
            }
            throw CredentialError("\(field) is not a PEM private key")
        }
        self.init(taking: pointer)
    }

    /// The key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the form Apple's
    /// .p8 files use, so every key is stored one way.
    var pem: String? {
        OpenSSLSupport.text { PEM_write_bio_PrivateKey($0, pointer, nil, nil, 0, nil, nil) == 1 }
    }

    /// "an RSA key", "an EC key on curve secp384r1", "an ED25519 key".
    var kindDescription: String {
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_RSA, EVP_PKEY_RSA_PSS:
            return "an RSA key"
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1 else {
                OpenSSLSupport.clearErrors()
                return "an EC key"
            }
            let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return "an EC key on curve \(curve)"
        case let id:
            guard let shortName = OBJ_nid2sn(id) else { return "a key of an unknown type" }
            return "a \(String(cString: shortName)) key"
        }
    }
}

/// An owned `X509`, freed with its owner.
///
/// Thread rule: used by one thread at a time, within the call that made it.
final class Certificate {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }

    /// Parses the first certificate of a PEM text (a chain may follow it).
    convenience init(pem: String) throws(CredentialError) {
        let text = pem.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw CredentialError("certificate is empty") }
        let parsed = OpenSSLSupport.withReadBIO(Array(text.utf8)) { PEM_read_bio_X509($0, nil, nil, nil) }
        guard let parsed, let pointer = parsed else {
            OpenSSLSupport.clearErrors()
            throw CredentialError("certificate is not a PEM certificate")
        }
        self.init(taking: pointer)
    }

    var pem: String? {
        OpenSSLSupport.text { PEM_write_bio_X509($0, pointer) == 1 }
    }

    /// Subject, validity and push topic.
    func info() throws(CredentialError) -> CertificateInfo {
        guard let notBefore = OpenSSLSupport.date(X509_get0_notBefore(pointer)),
              let notAfter = OpenSSLSupport.date(X509_get0_notAfter(pointer)) else {
            OpenSSLSupport.clearErrors()
            throw CredentialError("certificate has an unreadable validity period")
        }
        let name = X509_get_subject_name(pointer)
        let subject = OpenSSLSupport.text { CSystem_X509_NAME_print_rfc2253($0, name) >= 0 } ?? ""
        return CertificateInfo(subject: subject, notAfter: notAfter, notBefore: notBefore,
                               topic: Self.userID(of: name))
    }

    /// The UID (0.9.2342.19200300.100.1.1) attribute of `name`, as UTF-8.
    private static func userID(of name: OpaquePointer?) -> String? {
        let index = X509_NAME_get_index_by_NID(name, NID_userId, -1)
        guard index >= 0,
              let entry = X509_NAME_get_entry(name, index),
              let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard length >= 0, let utf8 else {
            OpenSSLSupport.clearErrors()
            return nil
        }
        defer { CSystem_OPENSSL_free(utf8) }
        let value = String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
        return value.isEmpty ? nil : value
    }
}
