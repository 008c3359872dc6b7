import RelayCore
import Testing
@testable import WebhookClient

struct WebhookRequestTests {
    @Test func encodesAPost() throws {
        let url = try WebhookURL(parsing: "https://hooks.example.com/in?app=1")
        let bytes = try WebhookRequest.encode(url, body: Array("{}".utf8), headers: [("Content-Type", "application/json")]).get()
        #expect(String(decoding: bytes, as: UTF8.self) == "POST /in?app=1 HTTP/1.1\r\nHost: hooks.example.com\r\nContent-Type: application/json\r\n"
            + "User-Agent: PushRelay-Webhook/1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
    }

    @Test func keepsAGivenUserAgent() throws {
        let url = try WebhookURL(parsing: "http://[2001:db8::1]:8080/")
        let bytes = try WebhookRequest.encode(url, body: [], headers: [("user-agent", "mine")]).get()
        #expect(String(decoding: bytes, as: UTF8.self) == "POST / HTTP/1.1\r\nHost: [2001:db8::1]:8080\r\nuser-agent: mine\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    }

    @Test(arguments: [
        (("Host", "evil.example"), "the client sets the Host header itself"),
        (("transfer-encoding", "chunked"), "the client sets the transfer-encoding header itself"),
        (("Bad Name", "x"), "\"Bad Name\" is not a header name"),
        (("", "x"), "\"\" is not a header name"),
        (("X-Split", "a\r\nInjected: 1"), "header X-Split contains a control character (0x0D); header values may not"),
    ])
    func refusesHeaders(_ header: (String, String), _ reason: String) throws {
        let url = try WebhookURL(parsing: "http://example.com/")
        #expect(WebhookRequest.encode(url, body: [], headers: [header]) == .failure(.init(reason)))
    }
}
