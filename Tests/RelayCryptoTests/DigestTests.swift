import Foundation
import Testing
@testable import RelayCrypto

@Suite struct DigestTests {
    @Test func sha256OfKnownInput() {
        let hex = Digest.sha256(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func constantTimeEquality() {
        #expect(Digest.constantTimeEqual(Array("secret".utf8), Array("secret".utf8)))
        #expect(!Digest.constantTimeEqual(Array("secret".utf8), Array("secreT".utf8)))
        #expect(!Digest.constantTimeEqual(Array("secret".utf8), Array("secret!".utf8)))
        #expect(!Digest.constantTimeEqual([], Array("x".utf8)))
    }
}
