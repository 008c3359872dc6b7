import Foundation
import Testing
@testable import RelayCrypto

@Suite struct TokenKeyTests {
    @Test func acceptsTraditionalP256Key() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let pem = try Fixtures.p256Key(dir)
        #expect(pem.contains("BEGIN EC PRIVATE KEY"))
        let normalised = try APNSCredentialCheck.tokenKey(pem: pem)
        #expect(normalised.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        // Normalising is stable and keeps the key.
        #expect(try APNSCredentialCheck.tokenKey(pem: normalised) == normalised)
        try openssl(["pkey", "-in", "p256.pem", "-out", "expected.pem"], in: dir)
        #expect(normalised == (try dir.read("expected.pem")))
    }

    @Test func acceptsPKCS8P8Key() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "AuthKey.p8"], in: dir)
        let pem = try dir.read("AuthKey.p8")
        #expect(pem.contains("BEGIN PRIVATE KEY"))
        #expect(try APNSCredentialCheck.tokenKey(pem: pem) == pem)
    }

    @Test func rejectsRSAKey() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "rsa.pem"], in: dir)
        #expect(throws: CredentialError("private_key is an RSA key; APNs token keys are P-256 (ES256)")) {
            try APNSCredentialCheck.tokenKey(pem: try dir.read("rsa.pem"))
        }
    }

    @Test func rejectsP384Key() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try openssl(["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "p384.pem"], in: dir)
        #expect(throws: CredentialError("private_key is an EC key on curve secp384r1; APNs token keys are P-256 (ES256)")) {
            try APNSCredentialCheck.tokenKey(pem: try dir.read("p384.pem"))
        }
    }

    @Test func rejectsEd25519Key() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try openssl(["genpkey", "-algorithm", "ED25519", "-out", "ed.pem"], in: dir)
        #expect(throws: CredentialError("private_key is a ED25519 key; APNs token keys are P-256 (ES256)")) {
            try APNSCredentialCheck.tokenKey(pem: try dir.read("ed.pem"))
        }
    }

    @Test(arguments: [
        "garbage",
        "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n",
        "-----BEGIN EC PRIVATE KEY-----\n-----END EC PRIVATE KEY-----\n",
    ])
    func rejectsGarbage(pem: String) {
        #expect(throws: CredentialError("private_key is not a PEM private key")) {
            try APNSCredentialCheck.tokenKey(pem: pem)
        }
        // The failure left nothing in OpenSSL's error queue for the next call on this thread.
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test func rejectsEmptyAndCertificateInput() throws {
        #expect(throws: CredentialError("private_key is empty")) { try APNSCredentialCheck.tokenKey(pem: " \n") }
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try Fixtures.p256Key(dir)
        let cert = try Fixtures.selfSigned(dir, keyFile: "p256.pem")
        #expect(throws: CredentialError("private_key is a certificate, not a PEM private key")) {
            try APNSCredentialCheck.tokenKey(pem: cert)
        }
    }

    @Test func rejectsEncryptedKeyWithoutPrompting() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                     "-aes-256-cbc", "-pass", "pass:hunter2", "-out", "enc.p8"], in: dir)
        #expect(throws: CredentialError("private_key is encrypted; upload the key without a passphrase")) {
            try APNSCredentialCheck.tokenKey(pem: try dir.read("enc.p8"))
        }
        _ = try Fixtures.p256Key(dir)
        try openssl(["ec", "-in", "p256.pem", "-aes256", "-passout", "pass:hunter2", "-out", "enc.pem"], in: dir)
        let traditional = try dir.read("enc.pem")
        #expect(traditional.contains("Proc-Type: 4,ENCRYPTED"))
        #expect(throws: CredentialError("private_key is encrypted; upload the key without a passphrase")) {
            try APNSCredentialCheck.tokenKey(pem: traditional)
        }
    }
}

@Suite struct CertificateCheckTests {
    @Test func acceptsMatchingValidSelfSignedCertificate() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = try Fixtures.p256Key(dir)
        let cert = try Fixtures.selfSigned(dir, keyFile: "p256.pem", subject: "/CN=PushRelay Test/O=Example", days: 30)
        let info = try APNSCredentialCheck.certificate(certificatePEM: cert, privateKeyPEM: key, now: Date())
        #expect(info.subject == "O=Example,CN=PushRelay Test")
        #expect(info.topic == nil)
        #expect(abs(info.notAfter.timeIntervalSinceNow - 30 * 86_400) < 600)
        #expect(abs(info.notBefore.timeIntervalSinceNow) < 600)
    }

    @Test func acceptsRSACertificateAndKey() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "rsa.pem"], in: dir)
        let cert = try Fixtures.selfSigned(dir, keyFile: "rsa.pem")
        _ = try APNSCredentialCheck.certificate(certificatePEM: cert, privateKeyPEM: try dir.read("rsa.pem"), now: Date())
    }

    @Test func rejectsMismatchedKey() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try Fixtures.p256Key(dir)
        let cert = try Fixtures.selfSigned(dir, keyFile: "p256.pem")
        let otherKey = try Fixtures.p256Key(dir, name: "other.pem")
        #expect(throws: CredentialError("private_key does not match the certificate")) {
            try APNSCredentialCheck.certificate(certificatePEM: cert, privateKeyPEM: otherKey, now: Date())
        }
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test func rejectsExpiredCertificate() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = try Fixtures.p256Key(dir)
        let cert = try certificate(forKeyPEM: key, notBefore: "20230101000000Z", notAfter: "20240101000000Z")
        #expect(throws: CredentialError("certificate expired on 2024-01-01T00:00:00Z")) {
            try APNSCredentialCheck.certificate(certificatePEM: cert, privateKeyPEM: key, now: Date())
        }
    }

    @Test func rejectsNotYetValidCertificate() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = try Fixtures.p256Key(dir)
        let cert = try certificate(forKeyPEM: key, notBefore: "20990101000000Z", notAfter: "21000101000000Z")
        #expect(throws: CredentialError("certificate is not valid before 2099-01-01T00:00:00Z")) {
            try APNSCredentialCheck.certificate(certificatePEM: cert, privateKeyPEM: key, now: Date())
        }
    }

    @Test func validityIsJudgedAtTheGivenTime() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = try Fixtures.p256Key(dir)
        let cert = try certificate(forKeyPEM: key, notBefore: "20230101000000Z", notAfter: "20240101000000Z")
        let inside = Date(timeIntervalSince1970: 1_688_169_600) // 2023-07-01
        let info = try APNSCredentialCheck.certificate(certificatePEM: cert, privateKeyPEM: key, now: inside)
        #expect(info.notBefore == Date(timeIntervalSince1970: 1_672_531_200))
        #expect(info.notAfter == Date(timeIntervalSince1970: 1_704_067_200))
        let justAfter = info.notAfter.addingTimeInterval(1)
        #expect(throws: CredentialError("certificate expired on 2024-01-01T00:00:00Z")) {
            try APNSCredentialCheck.certificate(certificatePEM: cert, privateKeyPEM: key, now: justAfter)
        }
    }

    @Test func rejectsGarbageCertificate() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = try Fixtures.p256Key(dir)
        #expect(throws: CredentialError("certificate is not a PEM certificate")) {
            try APNSCredentialCheck.certificate(certificatePEM: key, privateKeyPEM: key, now: Date())
        }
        #expect(throws: CredentialError("certificate is empty")) {
            try APNSCredentialCheck.certificate(certificatePEM: "", privateKeyPEM: key, now: Date())
        }
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test func topicIsTheSubjectUID() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = try Fixtures.p256Key(dir)
        let subject = "/UID=com.example.trader/CN=Apple Push Services: com.example.trader/OU=ABCDE12345/O=Example Inc./C=US"
        let cert = try Fixtures.selfSigned(dir, keyFile: "p256.pem", subject: subject)
        let info = try APNSCredentialCheck.certificate(certificatePEM: cert, privateKeyPEM: key, now: Date())
        #expect(info.topic == "com.example.trader")
        #expect(info.subject == "C=US,O=Example Inc.,OU=ABCDE12345,CN=Apple Push Services: com.example.trader,UID=com.example.trader")
    }

    @Test func topicKeepsUTF8() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = try Fixtures.p256Key(dir)
        try openssl(["req", "-x509", "-new", "-key", "p256.pem", "-utf8", "-subj", "/UID=com.exämple.app/CN=ü",
                     "-days", "1", "-out", "utf8.pem"], in: dir)
        let info = try APNSCredentialCheck.certificate(certificatePEM: try dir.read("utf8.pem"), privateKeyPEM: key, now: Date())
        #expect(info.topic == "com.exämple.app")
        #expect(info.subject == "CN=ü,UID=com.exämple.app")
    }
}

@Suite struct PKCS12CheckTests {
    /// key.pem + cert.pem exported as `name` with `arguments` (e.g. the password).
    func export(_ dir: TemporaryDirectory, _ arguments: [String], name: String = "bundle.p12") throws -> [UInt8] {
        try openssl(["pkcs12", "-export", "-inkey", "p256.pem", "-in", "cert.pem", "-out", name] + arguments, in: dir)
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir.file(name))))
    }

    @Test func acceptsExportWithTheRightPassword() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try Fixtures.p256Key(dir)
        let cert = try Fixtures.selfSigned(dir, keyFile: "p256.pem", subject: "/UID=com.example.app/CN=Apple Push Services: com.example.app")
        let der = try export(dir, ["-passout", "pass:correct horse"])

        let result = try APNSCredentialCheck.pkcs12(der, password: "correct horse", now: Date())
        #expect(result.info.topic == "com.example.app")
        #expect(result.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(result.certificatePEM == cert)
        // What is stored passes the PEM check by itself and is the same key.
        let again = try APNSCredentialCheck.certificate(certificatePEM: result.certificatePEM,
                                                        privateKeyPEM: result.privateKeyPEM, now: Date())
        #expect(again == result.info)
        #expect(result.privateKeyPEM == (try APNSCredentialCheck.tokenKey(pem: try dir.read("p256.pem"))))
    }

    @Test func rejectsWrongPassword() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try Fixtures.p256Key(dir)
        _ = try Fixtures.selfSigned(dir, keyFile: "p256.pem")
        let der = try export(dir, ["-passout", "pass:right"])
        for wrong in ["wrong", "", "Right"] {
            #expect(throws: CredentialError("p12 password is wrong or the file is damaged")) {
                try APNSCredentialCheck.pkcs12(der, password: wrong, now: Date())
            }
        }
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test func acceptsEmptyPassword() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try Fixtures.p256Key(dir)
        _ = try Fixtures.selfSigned(dir, keyFile: "p256.pem")
        let der = try export(dir, ["-passout", "pass:"])
        _ = try APNSCredentialCheck.pkcs12(der, password: "", now: Date())
    }

    @Test func acceptsLegacyRC2ExportThroughTheLegacyProvider() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try Fixtures.p256Key(dir)
        _ = try Fixtures.selfSigned(dir, keyFile: "p256.pem", subject: "/UID=com.example.old/CN=old")
        let der = try export(dir, ["-legacy", "-passout", "pass:old"])
        // Without the legacy provider the file cannot be read, and the error says why.
        #expect(throws: CredentialError(
            "p12 uses legacy encryption (RC2/3DES) that needs OpenSSL's legacy provider, which is not installed here; "
                + "re-export it with AES (OpenSSL 3: openssl pkcs12 -export, or add -certpbe AES-256-CBC -keypbe AES-256-CBC -macalg sha256)")) {
            try PKCS12Reader.read(der, password: "old", legacy: nil)
        }
        // An AES export never needs it.
        let modern = try export(dir, ["-passout", "pass:old"], name: "modern.p12")
        _ = try PKCS12Reader.read(modern, password: "old", legacy: nil)

        #expect(LegacyProvider.shared != nil, "Debian's libssl3 ships the legacy provider")
        let result = try APNSCredentialCheck.pkcs12(der, password: "old", now: Date())
        #expect(result.info.topic == "com.example.old")
        #expect(throws: CredentialError("p12 password is wrong or the file is damaged")) {
            try APNSCredentialCheck.pkcs12(der, password: "new", now: Date())
        }
    }

    @Test func rejectsExpiredCertificateInside() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = try Fixtures.p256Key(dir)
        try certificate(forKeyPEM: key, notBefore: "20230101000000Z", notAfter: "20240101000000Z")
            .write(toFile: dir.file("cert.pem"), atomically: true, encoding: .utf8)
        let der = try export(dir, ["-passout", "pass:x"])
        #expect(throws: CredentialError("certificate expired on 2024-01-01T00:00:00Z")) {
            try APNSCredentialCheck.pkcs12(der, password: "x", now: Date())
        }
    }

    @Test func rejectsBundleWithoutKey() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try Fixtures.p256Key(dir)
        _ = try Fixtures.selfSigned(dir, keyFile: "p256.pem")
        try openssl(["pkcs12", "-export", "-nokeys", "-in", "cert.pem", "-out", "nokey.p12", "-passout", "pass:x"], in: dir)
        let der = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir.file("nokey.p12"))))
        #expect(throws: CredentialError("p12 must contain the certificate and its private key")) {
            try APNSCredentialCheck.pkcs12(der, password: "x", now: Date())
        }
    }

    @Test func rejectsGarbage() {
        #expect(throws: CredentialError("p12 is empty")) { try APNSCredentialCheck.pkcs12([], password: "", now: Date()) }
        #expect(throws: CredentialError("p12 is not a PKCS#12 file")) {
            try APNSCredentialCheck.pkcs12(Array("not a p12 at all".utf8), password: "x", now: Date())
        }
        #expect(openSSLErrorQueueIsEmpty())
    }
}
