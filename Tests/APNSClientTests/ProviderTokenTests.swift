import Foundation
import RelayCore
import Synchronization
import Testing
@testable import APNSClient

/// A clock the test moves by hand: the wall clock (`advance`) apart from the monotonic one
/// (`skip`), so a token's age moves without timing out what waits, and the other way round.
final class TestClock: APNSClock {
    private let current: Mutex<Date>
    private let skipped = Mutex(Duration.zero)
    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    var instant: ContinuousClock.Instant { .now + skipped.withLock { $0 } }
    func advance(minutes: Double) { current.withLock { $0 += minutes * 60 } }
    func skip(_ duration: Duration) { skipped.withLock { $0 += duration } }
}

@Suite(.serialized) struct ProviderTokenTests {
    /// Makes a key with the openssl CLI in a fresh directory.
    static func makeKey(_ directory: TemporaryDirectory, curve: String = "P-256") async throws -> String {
        let path = directory.path("key-\(curve).p8")
        try await run(try executable("openssl"), ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:\(curve)", "-out", path])
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    static func json(_ part: Substring) throws -> [String: Any] {
        let bytes = try #require(Base64URL.decode(String(part)))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// DER `ECDSA-Sig-Value` from raw r‖s, written independently of the code under test.
    static func der(fromRaw raw: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        return [0x30, UInt8(body.count)] + body
    }

    @Test func jwtHasTheAPNsShapeAndVerifiesWithOpenSSL() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let manager = try ProviderTokenManager(keyPEM: try await Self.makeKey(directory), keyID: "ABC123DEFG", teamID: "TEAM456789", clock: clock)
        let jwt = try manager.token()
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(!jwt.contains("=") && !jwt.contains("+") && !jwt.contains("/"))
        let header = try Self.json(parts[0])
        #expect(header.count == 2 && header["alg"] as? String == "ES256" && header["kid"] as? String == "ABC123DEFG")
        let claims = try Self.json(parts[1])
        #expect(claims.count == 2 && claims["iss"] as? String == "TEAM456789" && claims["iat"] as? Int == 1_700_000_000)
        let signature = try #require(Base64URL.decode(String(parts[2])))
        #expect(signature.count == 64)

        let openssl = try executable("openssl")
        try await run(openssl, ["pkey", "-in", directory.path("key-P-256.p8"), "-pubout", "-out", directory.path("pub.pem")])
        try Data(Self.der(fromRaw: signature)).write(to: directory.url.appendingPathComponent("sig.der"))
        try Data("\(parts[0]).\(parts[1])".utf8).write(to: directory.url.appendingPathComponent("input"))
        let verified = try await run(openssl, ["dgst", "-sha256", "-verify", directory.path("pub.pem"), "-signature", directory.path("sig.der"), directory.path("input")])
        #expect(verified.contains("Verified OK"))
        // The same signature over other claims must not verify: the check above can fail.
        try Data("\(parts[0]).\(parts[0])".utf8).write(to: directory.url.appendingPathComponent("input"))
        await #expect(throws: TestFailure.self) {
            try await run(openssl, ["dgst", "-sha256", "-verify", directory.path("pub.pem"), "-signature", directory.path("sig.der"), directory.path("input")])
        }
    }

    @Test func tokenIsSharedThenRotatedAtFiftyMinutes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let manager = try ProviderTokenManager(keyPEM: try await Self.makeKey(directory), keyID: "K", teamID: "T", clock: clock)
        let first = try manager.token()
        clock.advance(minutes: 49)
        #expect(try manager.token() == first)
        clock.advance(minutes: 1)
        let second = try manager.token()
        #expect(second != first)
        #expect(try Self.json(second.split(separator: ".")[1])["iat"] as? Int == 1_700_000_000 + 50 * 60)
    }

    @Test func expiredAnswersRotateAtMostEveryTwentyMinutes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let manager = try ProviderTokenManager(keyPEM: try await Self.makeKey(directory), keyID: "K", teamID: "T", clock: clock)
        let first = try manager.token()
        clock.advance(minutes: 10)
        #expect(try manager.tokenExpired(first) == false)  // too young: APNs would say TooManyProviderTokenUpdates
        #expect(try manager.token() == first)
        clock.advance(minutes: 10)
        #expect(try manager.tokenExpired(first) == true)
        let second = try manager.token()
        #expect(second != first)
        // Another connection reporting the old token again changes nothing.
        #expect(try manager.tokenExpired(first) == true)
        #expect(try manager.token() == second)
    }

    @Test func keysThatAreNotP256AreRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let p384 = try await Self.makeKey(directory, curve: "P-384")
        #expect(throws: APNSCredentialError.badKey("not a P-256 key")) { try ES256Signer(pem: p384) }
        #expect(throws: APNSCredentialError.badKey("not a PEM private key")) { try ES256Signer(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
    }

    @Test func derSignaturesBecomePaddedRawHalves() throws {
        // r = 1 (one byte), s = 0x80 followed by 31 0x11 bytes (DER needs a leading zero).
        let s = [UInt8(0x80)] + Array(repeating: UInt8(0x11), count: 31)
        let der: [UInt8] = [0x30, 3 + 35, 0x02, 0x01, 0x01, 0x02, 0x21, 0x00] + s
        let raw = try ES256Signer.rawSignature(fromDER: der)
        #expect(raw == Array(repeating: 0, count: 31) + [1] + s)
        #expect(throws: APNSCredentialError.signingFailed) { try ES256Signer.rawSignature(fromDER: [0x30, 0x00, 0x01]) }
    }

    @Test func base64URLHasNoPadding() {
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xfb, 0xff])
    }
}
