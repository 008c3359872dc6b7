import Foundation
import RelayCrypto
import Testing

@Suite struct WebhookSignatureTests {
    /// RFC 4231, test case 2.
    @Test func hmacSHA256MatchesTheRFC() {
        let mac = WebhookSignature.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(mac.map { String(format: "%02x", $0) }.joined() == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func theHeaderSignsTheTimestampAndTheBody() {
        let secret = Array("whsec_test".utf8)
        let body = Array(#"{"events":[]}"#.utf8)
        let header = WebhookSignature.header(secret: secret, timestamp: 1_700_000_000, body: body)
        let mac = WebhookSignature.hmacSHA256(key: secret, message: Array("1700000000.".utf8) + body)
        #expect(header == "t=1700000000,v1=" + mac.map { String(format: "%02x", $0) }.joined())
        #expect(WebhookSignature.header(secret: secret, timestamp: 1_700_000_001, body: body) != header)
    }

    @Test func secretsAreFreshAndLong() {
        let one = WebhookSignature.issueSecret()
        #expect(one.hasPrefix("whsec_") && one.count == 70)
        #expect(one != WebhookSignature.issueSecret())
    }
}
