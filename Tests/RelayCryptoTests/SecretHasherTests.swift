import Testing
@testable import RelayCrypto

@Suite struct SecretHasherTests {
    @Test func hashThenVerifySucceeds() {
        let stored = SecretHasher.hash("master-secret-1", iterations: 1_000)
        #expect(stored.hasPrefix("pbkdf2-sha256$1000$"))
        #expect(SecretHasher.verify("master-secret-1", against: stored))
    }

    @Test func defaultIterationsAreSlowEnough() throws {
        let stored = SecretHasher.hash("s3cret")
        let fields = stored.split(separator: "$")
        #expect(fields.count == 4)
        let iterations = try #require(Int(fields[1]))
        #expect(iterations >= 100_000)
        #expect(SecretHasher.verify("s3cret", against: stored))
    }

    @Test func wrongSecretFails() {
        let stored = SecretHasher.hash("master-secret-1", iterations: 1_000)
        #expect(!SecretHasher.verify("master-secret-2", against: stored))
        #expect(!SecretHasher.verify("", against: stored))
        #expect(!SecretHasher.verify("master-secret-1 ", against: stored))
    }

    @Test func sameSecretHashesDifferently() {
        let first = SecretHasher.hash("same", iterations: 1_000)
        let second = SecretHasher.hash("same", iterations: 1_000)
        #expect(first != second)
        #expect(first.split(separator: "$")[2] != second.split(separator: "$")[2])
        #expect(SecretHasher.verify("same", against: first))
        #expect(SecretHasher.verify("same", against: second))
    }

    @Test func storedIterationCountIsUsed() {
        // A hash made with other settings still verifies: the stored string carries them.
        let stored = SecretHasher.hash("rotate-me", iterations: 2_345)
        #expect(SecretHasher.verify("rotate-me", against: stored))
        let altered = stored.replacingOccurrences(of: "$2345$", with: "$2346$")
        #expect(!SecretHasher.verify("rotate-me", against: altered))
    }

    @Test func emptySecretHashesAndVerifies() {
        let stored = SecretHasher.hash("", iterations: 1_000)
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
    ])
    func malformedStoredStringIsRejected(stored: String) {
        #expect(!SecretHasher.verify("anything", against: stored))
        #expect(!SecretHasher.verify("", against: stored))
    }

    @Test func truncatedValidHashIsRejected() {
        let stored = SecretHasher.hash("secret", iterations: 1_000)
        #expect(!SecretHasher.verify("secret", against: String(stored.dropLast(8))))
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
