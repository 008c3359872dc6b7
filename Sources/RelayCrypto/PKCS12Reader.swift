import CSystem

/// Opens a PKCS#12 bundle into its certificate and private key.
enum PKCS12Reader {
    /// - Parameter legacy: where to retry files the default provider cannot decrypt; nil
    ///   when there is none (tests pass nil to see the message users then get).
    static func read(_ der: [UInt8], password: String,
                     legacy: LegacyProvider? = LegacyProvider.shared) throws(CredentialError) -> (Certificate, PrivateKey) {
        let first = parse(der, password: password)
        switch first {
        case .parsed(let certificate, let key):
            return (certificate, key)
        case .failure(let error):
            throw error
        case .undecryptable:
            break
        }
        // The password is right (the MAC checked out) but the contents did not decrypt
        // with the default provider: most likely RC2/3DES, which needs the legacy one.
        guard let legacy else {
            throw CredentialError("p12 uses legacy encryption (RC2/3DES) that needs OpenSSL's legacy provider, "
                + "which is not installed here; re-export it with AES (OpenSSL 3: openssl pkcs12 -export, "
                + "or add -certpbe AES-256-CBC -keypbe AES-256-CBC -macalg sha256)")
        }
        switch legacy.run({ parse(der, password: password) }) {
        case .parsed(let certificate, let key):
            return (certificate, key)
        case .failure(let error):
            throw error
        case .undecryptable:
            throw CredentialError("p12 password is wrong or the file is damaged")
        }
    }

    private enum Outcome {
        case parsed(Certificate, PrivateKey)
        case failure(CredentialError)
        /// The MAC matched, or there is none, but the bags did not decrypt.
        case undecryptable
    }

    private static func parse(_ der: [UInt8], password: String) -> Outcome {
        defer { OpenSSLSupport.clearErrors() }
        let decoded = OpenSSLSupport.withReadBIO(der) { d2i_PKCS12_bio($0, nil) }
        guard let decoded, let p12 = decoded else {
            return .failure(CredentialError("p12 is not a PKCS#12 file"))
        }
        defer { PKCS12_free(p12) }
        if PKCS12_mac_present(p12) == 1 && !macMatches(p12, password: password) {
            return .failure(CredentialError("p12 password is wrong or the file is damaged"))
        }
        var keyPointer: OpaquePointer?
        var certificatePointer: OpaquePointer?
        // Passing no stack for the extra certificates makes OpenSSL free them: APNs needs
        // only the client certificate.
        let ok = PKCS12_parse(p12, password, &keyPointer, &certificatePointer, nil)
        // Take ownership first, so whatever was returned is freed on every path.
        let key = keyPointer.map(PrivateKey.init(taking:))
        let certificate = certificatePointer.map(Certificate.init(taking:))
        guard ok == 1 else { return .undecryptable }
        guard let certificate, let key else {
            return .failure(CredentialError("p12 must contain the certificate and its private key"))
        }
        return .parsed(certificate, key)
    }

    /// PKCS12_parse's own rule for empty passwords: try "no password", then "".
    private static func macMatches(_ p12: OpaquePointer, password: String) -> Bool {
        if password.isEmpty {
            return PKCS12_verify_mac(p12, nil, 0) == 1 || PKCS12_verify_mac(p12, "", 0) == 1
        }
        return PKCS12_verify_mac(p12, password, -1) == 1
    }
}
