import Testing
@testable import RelayCrypto

@Suite struct SecretHasherTests {
    /// "master-secret-1" under the earlier scheme (PBKDF2-HMAC-SHA256, 1,000 rounds, salt
    /// "saltsaltsaltsalt"), as Python's hashlib.pbkdf2_hmac computes it.
    static let slowHash = "pbkdf2-sha256$1000$c2FsdHNhbHRzYWx0c2FsdA==$htQjnQi1HEBi2AbCBO7Jxf2lblkfIfKMfXE4umgXPLg="

    @Test func hashThenVerifySucceeds() {
        let stored = SecretHasher.hash("master-secret-1")
        #expect(stored.hasPrefix("sha256$"))
        #expect(!SecretHasher.isSlow(stored))
        #expect(SecretHasher.verify("master-secret-1", against: stored))
    }

    @Test func wrongSecretFails() {
        for stored in [SecretHasher.hash("master-secret-1"), Self.slowHash] {
            #expect(!SecretHasher.verify("master-secret-2", against: stored))
            #expect(!SecretHasher.verify("", against: stored))
            #expect(!SecretHasher.verify("master-secret-1 ", against: stored))
        }
        // PBKDF2 pads its HMAC key with NULs, so a trailing NUL passes the earlier scheme
        // (BasicCredentials refuses control characters before any check); SHA-256 does not.
        #expect(!SecretHasher.verify("master-secret-1\u{0}", against: SecretHasher.hash("master-secret-1")))
    }

    @Test func sameSecretHashesDifferently() {
        let first = SecretHasher.hash("same")
        let second = SecretHasher.hash("same")
        #expect(first != second)
        #expect(first.split(separator: "$")[1] != second.split(separator: "$")[1])
        #expect(SecretHasher.verify("same", against: first))
        #expect(SecretHasher.verify("same", against: second))
    }

    /// Secrets hashed before the relay moved to salted SHA-256 still authenticate, with the
    /// iteration count their stored string carries.
    @Test func earlierSlowHashesStillVerify() {
        #expect(SecretHasher.isSlow(Self.slowHash))
        #expect(SecretHasher.verify("master-secret-1", against: Self.slowHash))
        let altered = Self.slowHash.replacingOccurrences(of: "$1000$", with: "$1001$")
        #expect(!SecretHasher.verify("master-secret-1", against: altered))
    }

    @Test func emptySecretHashesAndVerifies() {
        let stored = SecretHasher.hash("")
        #expect(SecretHasher.verify("", against: stored))
        #expect(!SecretHasher.verify("x", against: stored))
    }

    @Test(arguments: [
        "",
        "plain-text-secret",
        "pbkdf2-sha256$1000$c2FsdHNhbHRzYWx0c2FsdA==",
        "pbkdf2-sha1$1000$c2FsdHNhbHRzYWx0c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "pbkdf2-sha256$abc$c2FsdHNhbHRzYWx0c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "pbkdf2-sha256$0$c2FsdHNhbHRzYWx0c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "pbkdf2-sha256$-5$c2FsdHNhbHRzYWx0c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "pbkdf2-sha256$999999999999$c2FsdHNhbHRzYWx0c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "pbkdf2-sha256$1000$not base64!$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "pbkdf2-sha256$1000$$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "pbkdf2-sha256$1000$c2FsdHNhbHRzYWx0c2FsdA==$",
        "pbkdf2-sha256$1000$c2FsdHNhbHRzYWx0c2FsdA==$AAAA",
        "pbkdf2-sha256$1000$c2FsdHNhbHRzYWx0c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=$extra",
        "sha256$c2FsdHNhbHRzYWx0c2FsdA==",
        "sha256$c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "sha256$not base64!$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "sha256$c2FsdHNhbHRzYWx0c2FsdA==$AAAA",
        "sha256$c2FsdHNhbHRzYWx0c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=$extra",
        "sha512$c2FsdHNhbHRzYWx0c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
    ])
    func malformedStoredStringIsRejected(stored: String) {
        #expect(!SecretHasher.verify("anything", against: stored))
        #expect(!SecretHasher.verify("", against: stored))
    }

    @Test func truncatedValidHashIsRejected() {
        #expect(!SecretHasher.verify("secret", against: String(SecretHasher.hash("secret").dropLast(8))))
        #expect(!SecretHasher.verify("master-secret-1", against: String(Self.slowHash.dropLast(8))))
    }
}

@Suite struct SecureRandomTests {
    @Test func bytesHaveTheRequestedCountAndVary() {
        #expect(SecureRandom.bytes(0).isEmpty)
        let first = SecureRandom.bytes(32)
        let second = SecureRandom.bytes(32)
        #expect(first.count == 32)
        #expect(first != second)
        #expect(first != [UInt8](repeating: 0, count: 32))
    }

    @Test func hexIsLowercaseAndTwiceTheLength() {
        let appKey = SecureRandom.hex(12)
        #expect(appKey.count == 24)
        #expect(appKey.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(SecureRandom.hex(12) != appKey)
    }

    @Test func hexEncodingRoundTrips() {
        #expect(Hex.encode([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
        #expect(Hex.decode("000FA5ff") == [0x00, 0x0f, 0xa5, 0xff])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
    }
}
