import APNSClient
import Foundation
import Testing
@testable import APNSSimulator

@Suite struct ProviderTokenVerifierTests {
    let signer = TestSigningKey()
    let now: Int64 = 1_800_000_000

    func verifier(acceptAny: Bool = false) throws -> ProviderTokenVerifier {
        try ProviderTokenVerifier(pemKeys: ["KEY1": signer.publicPEM], acceptAnyToken: acceptAny)
    }

    func check(_ verifier: ProviderTokenVerifier, _ authorization: String?) -> APNSReason? {
        var cache = ProviderTokenCache()
        return verifier.check(authorization: authorization, now: now, cache: &cache)
    }

    @Test func goodTokenIsAccepted() throws {
        let token = signer.jwt(keyID: "KEY1", issuedAt: now - 60)
        #expect(check(try verifier(), "bearer \(token)") == nil)
        #expect(try verifier().verify(authorization: "bearer \(token)") == .success(now - 60))
    }

    @Test func privateKeyPEMWorksToo() throws {
        let verifier = try ProviderTokenVerifier(pemKeys: ["KEY1": signer.privatePEM], acceptAnyToken: false)
        #expect(check(verifier, "bearer \(signer.jwt(keyID: "KEY1", issuedAt: now))") == nil)
    }

    @Test func tamperedTokenIsInvalid() throws {
        let token = signer.jwt(keyID: "KEY1", issuedAt: now)
        let parts = token.split(separator: ".").map(String.init)
        // Claims from another token (a later iat) under the first token's signature.
        let other = signer.jwt(keyID: "KEY1", issuedAt: now + 1).split(separator: ".").map(String.init)
        #expect(check(try verifier(), "bearer \(parts[0]).\(other[1]).\(parts[2])") == .invalidProviderToken)
        // A flipped signature character.
        var signature = Array(parts[2])
        signature[10] = signature[10] == "A" ? "B" : "A"
        #expect(check(try verifier(), "bearer \(parts[0]).\(parts[1]).\(String(signature))") == .invalidProviderToken)
    }

    @Test func tokenFromAnotherKeyIsInvalid() throws {
        let stranger = TestSigningKey()
        #expect(check(try verifier(), "bearer \(stranger.jwt(keyID: "KEY1", issuedAt: now))") == .invalidProviderToken)
    }

    @Test func tokenOlderThanAnHourIsExpired() throws {
        #expect(check(try verifier(), "bearer \(signer.jwt(keyID: "KEY1", issuedAt: now - 3601))") == .expiredProviderToken)
        #expect(check(try verifier(), "bearer \(signer.jwt(keyID: "KEY1", issuedAt: now - 3600))") == nil)
    }

    @Test func unknownKeyIDIsInvalid() throws {
        #expect(check(try verifier(), "bearer \(signer.jwt(keyID: "OTHER", issuedAt: now))") == .invalidProviderToken)
    }

    @Test func malformedTokensAreInvalid() throws {
        for authorization in [
            "bearer", "basic abc", "bearer a.b", "bearer !!.??.##",
            "bearer \(signer.jwt(keyID: "KEY1", issuedAt: now, alg: "HS256"))",
        ] {
            #expect(check(try verifier(), authorization) == .invalidProviderToken, "\(authorization)")
        }
    }

    @Test func missingTokenWithKeysIsMissingProviderToken() throws {
        #expect(check(try verifier(), nil) == .missingProviderToken)
    }

    @Test func certificateModeAllowsNoTokenAndRefusesTokens() throws {
        let verifier = try ProviderTokenVerifier(pemKeys: [:], acceptAnyToken: false)
        #expect(!verifier.requiresToken)
        #expect(check(verifier, nil) == nil)
        #expect(check(verifier, "bearer \(signer.jwt(keyID: "KEY1", issuedAt: now))") == .invalidProviderToken)
    }

    @Test func acceptAnyTokenAcceptsAnything() throws {
        let verifier = try verifier(acceptAny: true)
        #expect(check(verifier, nil) == nil)
        #expect(check(verifier, "bearer garbage") == nil)
    }

    @Test func verifiedTokenIsCachedButStillExpires() throws {
        let verifier = try verifier()
        let authorization = "bearer \(signer.jwt(keyID: "KEY1", issuedAt: now))"
        var cache = ProviderTokenCache()
        #expect(verifier.check(authorization: authorization, now: now, cache: &cache) == nil)
        #expect(cache == ProviderTokenCache(token: authorization, issuedAt: now))
        #expect(verifier.check(authorization: authorization, now: now + 3601, cache: &cache) == .expiredProviderToken)
    }

    @Test func refreshingWithin20MinutesIsTooManyProviderTokenUpdates() throws {
        let verifier = try verifier()
        var cache = ProviderTokenCache()
        let first = "bearer \(signer.jwt(keyID: "KEY1", issuedAt: now))"
        #expect(verifier.check(authorization: first, now: now, cache: &cache) == nil)
        let early = "bearer \(signer.jwt(keyID: "KEY1", issuedAt: now + 1199))"
        #expect(verifier.check(authorization: early, now: now + 1199, cache: &cache) == .tooManyProviderTokenUpdates)
        #expect(APNSReason.tooManyProviderTokenUpdates.status == 429)
        // The first token stays in force.
        #expect(verifier.check(authorization: first, now: now + 1199, cache: &cache) == nil)
        // Re-signed with the same iat: the same token as far as refreshing goes.
        let resigned = "bearer \(signer.jwt(keyID: "KEY1", issuedAt: now))"
        #expect(resigned != first)
        #expect(verifier.check(authorization: resigned, now: now + 1199, cache: &cache) == nil)
        let due = "bearer \(signer.jwt(keyID: "KEY1", issuedAt: now + 1200))"
        #expect(verifier.check(authorization: due, now: now + 1200, cache: &cache) == nil)
        #expect(cache.issuedAt == now + 1200)
    }

    @Test func keysMustBeP256() {
        #expect(throws: APNSSimulatorError.self) {
            try ProviderTokenVerifier(pemKeys: ["K": "not a key"], acceptAnyToken: false)
        }
    }
}
