import RelayCore
import Testing
@testable import WebhookClient

struct WebhookURLTests {
    @Test(arguments: [
        ("https://hooks.example.com/pushrelay", "https://hooks.example.com/pushrelay", 443, "/pushrelay"),
        ("HTTP://Example.COM", "http://example.com/", 80, "/"),
        ("http://example.com?a=b", "http://example.com/?a=b", 80, "/?a=b"),
        ("https://example.com:8443/a/b?c=d&e=%20f", "https://example.com:8443/a/b?c=d&e=%20f", 8443, "/a/b?c=d&e=%20f"),
        ("https://example.com:443/", "https://example.com/", 443, "/"),
        ("http://203.0.113.7:8080/x", "http://203.0.113.7:8080/x", 8080, "/x"),
        ("http://[2001:DB8::1]/x", "http://[2001:db8::1]/x", 80, "/x"),
        ("http://[::ffff:198.51.100.1]:81/", "http://198.51.100.1:81/", 81, "/"),
        ("https://xn--bcher-kva.example/_hook", "https://xn--bcher-kva.example/_hook", 443, "/_hook"),
    ])
    func acceptsAndCanonicalizes(_ input: String, _ canonical: String, _ port: Int, _ target: String) throws {
        let url = try WebhookURL(parsing: input)
        #expect(url.text == canonical)
        #expect(url.port == port)
        #expect(url.target == target)
    }

    @Test func numericHostsCarryTheirAddress() throws {
        #expect(try WebhookURL(parsing: "http://10.0.0.1/").literalAddress?.description == "10.0.0.1")
        #expect(try WebhookURL(parsing: "http://[fe80::1]/").literalAddress?.description == "fe80::1")
        #expect(try WebhookURL(parsing: "http://example.com/").literalAddress == nil)
        #expect(try WebhookURL(parsing: "http://[::1]:8080/").authority == "[::1]:8080")
    }

    @Test(arguments: [
        ("", "url is empty"),
        ("ftp://example.com/", "url must use http or https"),
        ("example.com/hook", "url must start with http:// or https://"),
        ("https://user:pass@example.com/", "url must not hold a user name or password"),
        ("https://example.com/#top", "url must not have a fragment (#…)"),
        ("https://exa mple.com/", "url may hold only visible ASCII characters (no spaces; percent-encode others, IDN hosts in punycode)"),
        ("https://bücher.example/", "url may hold only visible ASCII characters (no spaces; percent-encode others, IDN hosts in punycode)"),
        ("https:///hook", "url has no host"),
        ("https://:443/hook", "url has no host"),
        ("http://2130706433/", "url's host is not a valid IPv4 address (write a.b.c.d)"),
        ("http://127.1/", "url's host is not a valid IPv4 address (write a.b.c.d)"),
        ("http://0177.0.0.1/", "url's host is not a valid IPv4 address (write a.b.c.d)"),
        ("http://[fe80::1%25eth0]/", "url's host is not a valid IPv6 address (zones are not allowed)"),
        ("http://[1.2.3.4]/", "url's host is not a valid IPv6 address (zones are not allowed)"),
        ("http://[::1/", "url has an unclosed [ in its host"),
        ("http://[::1]x/", "url has characters after its IPv6 host"),
        ("http://example.com:0/", "url's port must be a number from 1 to 65535"),
        ("http://example.com:65536/", "url's port must be a number from 1 to 65535"),
        ("http://example.com:/", "url's port must be a number from 1 to 65535"),
        ("http://example.com:+80/", "url's port must be a number from 1 to 65535"),
        ("http://-bad.example/", "url's host is not a valid DNS name"),
        ("http://a..example/", "url's host is not a valid DNS name"),
        ("http://a!b.example/", "url's host is not a valid DNS name"),
    ])
    func refuses(_ input: String, _ message: String) {
        #expect(throws: WebhookURLError(message)) { try WebhookURL(parsing: input) }
    }

    @Test func boundsTheLength() throws {
        let base = "https://example.com/"
        _ = try WebhookURL(parsing: base + String(repeating: "a", count: WebhookURL.maxLength - base.count))
        #expect(throws: WebhookURLError("url is longer than 2048 characters")) {
            try WebhookURL(parsing: base + String(repeating: "a", count: WebhookURL.maxLength - base.count + 1))
        }
        #expect(throws: WebhookURLError("url's host is longer than 253 characters")) {
            try WebhookURL(parsing: "https://" + Array(repeating: String(repeating: "a", count: 60), count: 5).joined(separator: ".") + "/")
        }
    }
}
