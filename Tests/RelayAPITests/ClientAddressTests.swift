import Foundation
import HTTPServer
import RelayCore
import Synchronization
import Testing
@testable import RelayAPI

/// Who a request comes from, and how its failed authentications are counted: pure values,
/// no socket and no database.
@Suite struct ClientAddressTests {
    static func resolve(_ trusted: [String], peer: String, _ headers: [(String, String)] = []) -> String? {
        let resolver = ClientAddressResolver(trustedProxies: trusted.compactMap(IPNetwork.init))
        return resolver.client(peer: peer, headers: HTTPHeaders(headers))?.description
    }

    @Test func anUntrustedPeerIsTheClientWhateverItsHeadersSay() {
        #expect(Self.resolve([], peer: "203.0.113.9:4000", [("X-Forwarded-For", "198.51.100.1")]) == "203.0.113.9")
        #expect(Self.resolve(["10.0.0.0/8"], peer: "203.0.113.9:4000", [("Forwarded", "for=198.51.100.1")]) == "203.0.113.9")
        #expect(Self.resolve([], peer: "[2001:db8::1]:443") == "2001:db8::1")
        #expect(Self.resolve([], peer: "") == nil, "an in-process request has no address")
    }

    @Test func behindTrustedProxiesTheRightMostUntrustedHopIsTheClient() {
        let proxies = ["10.0.0.0/8", "192.0.2.7"]
        // The client wrote "1.1.1.1" itself; the proxy appended the address it saw.
        #expect(Self.resolve(proxies, peer: "10.1.2.3:5000", [("X-Forwarded-For", "1.1.1.1, 198.51.100.20")]) == "198.51.100.20")
        // Two proxies: the edge one's entry is trusted, the one before it is the client.
        #expect(Self.resolve(proxies, peer: "10.1.2.3:5000", [("X-Forwarded-For", "1.1.1.1, 198.51.100.20, 192.0.2.7")]) == "198.51.100.20")
        // Headers repeated are one list, in order.
        #expect(Self.resolve(proxies, peer: "10.1.2.3:5000", [("X-Forwarded-For", "1.1.1.1"), ("X-Forwarded-For", "198.51.100.21")])
                == "198.51.100.21")
        // Every hop trusted: the left-most.
        #expect(Self.resolve(proxies, peer: "10.1.2.3:5000", [("X-Forwarded-For", "10.9.9.9")]) == "10.9.9.9")
        // No header: the proxy itself.
        #expect(Self.resolve(proxies, peer: "10.1.2.3:5000") == "10.1.2.3")
        // An entry that is no address: the proxy that wrote it.
        #expect(Self.resolve(proxies, peer: "10.1.2.3:5000", [("X-Forwarded-For", "unknown")]) == "10.1.2.3")
        #expect(Self.resolve(proxies, peer: "10.1.2.3:5000", [("X-Forwarded-For", "198.51.100.22:61000")]) == "198.51.100.22")
    }

    @Test func forwardedIsReadWhenThereIsNoXForwardedFor() {
        let proxies = ["::1", "10.0.0.0/8"]
        #expect(Self.resolve(proxies, peer: "[::1]:5000", [("Forwarded", #"for=192.0.2.60;proto=https, for="[2001:db8:cafe::17]:4711""#)])
                == "2001:db8:cafe::17")
        #expect(Self.resolve(proxies, peer: "[::1]:5000", [("Forwarded", "proto=http;For=198.51.100.3")]) == "198.51.100.3")
        #expect(Self.resolve(proxies, peer: "[::1]:5000", [("Forwarded", "for=_hidden")]) == "::1")
        #expect(Self.resolve(proxies, peer: "[::1]:5000", [("Forwarded", "for=198.51.100.3"), ("X-Forwarded-For", "198.51.100.4")])
                == "198.51.100.4", "X-Forwarded-For wins when both are present")
    }

    @Test func addressesAndNetworks() throws {
        #expect(IPAddress("::ffff:10.1.2.3")?.description == "10.1.2.3", "IPv4-mapped IPv6 is IPv4")
        #expect(try #require(IPNetwork("10.0.0.0/8")).contains(try #require(IPAddress("::ffff:10.200.0.1"))))
        #expect(try #require(IPNetwork("::ffff:10.0.0.0/104")) == IPNetwork("10.0.0.0/8"))
        #expect(try #require(IPNetwork("2001:db8::/32")).contains(try #require(IPAddress("2001:db8:ffff::1"))))
        #expect(!(try #require(IPNetwork("2001:db8::/32")).contains(try #require(IPAddress("2001:db9::1")))))
        #expect(!(try #require(IPNetwork("192.0.2.7")).contains(try #require(IPAddress("192.0.2.8")))))
        #expect(IPNetwork("192.0.2.130/25")?.description == "192.0.2.128/25")
        #expect(try #require(IPNetwork("0.0.0.0/0")).contains(try #require(IPAddress("8.8.8.8"))))
        for bad in ["", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8", "host.example", "10.0.0/8", "::/129", "10.0.0.0/"] {
            #expect(IPNetwork(bad) == nil, "\(bad)")
        }
        #expect(IPAddress("127.0.0.2")?.isLoopback == true && IPAddress("::1")?.isLoopback == true)
        #expect(IPAddress("128.0.0.1")?.isLoopback == false && IPAddress("::2")?.isLoopback == false)
    }

    @Test func failuresCountPerAddressAndSubjectWithIPv6ByItsSlash64() throws {
        let a = AuthenticationAttempt(client: IPAddress("2001:db8:1:2:aaaa::1"), subject: .app("k"))
        let b = AuthenticationAttempt(client: IPAddress("2001:db8:1:2:bbbb::9"), subject: .app("k"))
        let c = AuthenticationAttempt(client: IPAddress("2001:db8:1:3::1"), subject: .app("k"))
        #expect(a.key == b.key && a.key != c.key)
        #expect(AuthenticationAttempt(client: IPAddress("192.0.2.1"), subject: .admin).key
                != AuthenticationAttempt(client: IPAddress("192.0.2.1"), subject: .app("")).key)
    }

    /// The failure counter with a hand-set clock: one (address, app key) pair is refused past
    /// its limit, with the seconds to the window's end; other app keys and addresses are not;
    /// the next window starts afresh.
    @Test func theFailureCounterRefusesOnlyThePairPastItsLimit() throws {
        let now = Mutex(Date(timeIntervalSince1970: 1_799_999_955))  // 15 s into a minute
        let limiter = RateLimiter(settings: RateLimitSettings(authFailuresPerMinute: 2), clock: { now.withLock { $0 } })
        let address = IPAddress("198.51.100.7")
        let attempt = AuthenticationAttempt(client: address, subject: .app("aaaaaaaaaaaaaaaaaaaaaaaa"))
        for _ in 0..<2 {
            #expect(limiter.mayAuthenticate(attempt).allowed)
            limiter.recordAuthenticationFailure(attempt)
        }
        let refused = limiter.mayAuthenticate(attempt)
        #expect(!refused.allowed && refused.resetSeconds == 45)
        #expect(limiter.mayAuthenticate(AuthenticationAttempt(client: address, subject: .app("bbbbbbbbbbbbbbbbbbbbbbbb"))).allowed)
        #expect(limiter.mayAuthenticate(AuthenticationAttempt(client: address, subject: .admin)).allowed)
        #expect(limiter.mayAuthenticate(AuthenticationAttempt(client: IPAddress("198.51.100.8"), subject: attempt.subject)).allowed)
        now.withLock { $0 += 45 }
        #expect(limiter.mayAuthenticate(attempt).allowed, "a new minute")
    }
}
