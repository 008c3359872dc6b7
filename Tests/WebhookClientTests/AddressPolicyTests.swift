import RelayCore
import Testing
@testable import WebhookClient

struct AddressPolicyTests {
    @Test(arguments: [
        ("0.0.0.0", "this network"), ("0.255.255.255", "this network"),
        ("10.0.0.1", "private"), ("10.255.255.255", "private"),
        ("100.64.0.1", "shared address space (carrier-grade NAT)"), ("100.127.255.255", "shared address space (carrier-grade NAT)"),
        ("127.0.0.1", "loopback"), ("127.255.255.254", "loopback"),
        ("169.254.169.254", "link-local"), ("169.254.0.1", "link-local"),
        ("172.16.0.1", "private"), ("172.31.255.255", "private"),
        ("192.0.0.8", "IETF protocol assignments"), ("192.0.2.1", "documentation"), ("192.88.99.1", "6to4 relay anycast"),
        ("192.168.1.1", "private"), ("198.18.0.1", "benchmarking"), ("198.19.255.255", "benchmarking"),
        ("198.51.100.1", "documentation"), ("203.0.113.1", "documentation"),
        ("224.0.0.1", "multicast"), ("239.255.255.250", "multicast"),
        ("240.0.0.1", "reserved"), ("255.255.255.255", "broadcast"),
        ("::", "unspecified"), ("::1", "loopback"), ("::127.0.0.1", "IPv4-compatible (deprecated)"),
        ("::ffff:127.0.0.1", "loopback"), ("::ffff:10.0.0.1", "private"), ("::ffff:169.254.169.254", "link-local"),
        ("64:ff9b::7f00:1", "loopback"), ("64:ff9b::a00:1", "private"), ("64:ff9b:1::1", "local-use NAT64"),
        ("100::1", "discard-only"), ("2001::1", "IETF protocol assignments (Teredo and others)"),
        ("2001:db8::1", "documentation"), ("2002:7f00:1::1", "6to4"), ("3fff::1", "documentation"),
        ("fc00::1", "unique local"), ("fd12:3456::1", "unique local"),
        ("fe80::1", "link-local"), ("febf::1", "link-local"), ("fec0::1", "site-local (deprecated)"),
        ("ff02::1", "multicast"), ("ff0e::1", "multicast"),
    ])
    func refuses(_ text: String, _ name: String) throws {
        let address = try #require(IPAddress(text))
        #expect(AddressPolicy.nonPublicBlock(address)?.name == name)
    }

    @Test(arguments: [
        "1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.1", "100.63.255.255", "100.128.0.1", "126.255.255.255", "128.0.0.1",
        "169.253.255.255", "169.255.0.1", "172.15.255.255", "172.32.0.1", "192.0.1.1", "192.167.255.255", "192.169.0.1",
        "198.17.255.255", "198.20.0.1", "223.255.255.255",
        "2606:4700:4700::1111", "2a00:1450:4001::1", "64:ff9b::808:808", "::ffff:8.8.8.8", "2001:200::1", "fbff::1", "fe00::1",
    ])
    func allowsPublic(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(AddressPolicy.nonPublicBlock(address) == nil)
    }

    @Test func oneNonPublicAddressRefusesTheHost() throws {
        let addresses = try ["93.184.216.34", "10.0.0.5"].map { try #require(IPAddress($0)) }
        #expect(AddressPolicy.target(among: addresses, allowPrivate: false)
            == .failure(.init(description: "10.0.0.5 is not a public address: private (10.0.0.0/8) (PUSHRELAY_WEBHOOK_ALLOW_PRIVATE=1 allows it)")))
        #expect(AddressPolicy.target(among: addresses, allowPrivate: true) == .success(addresses[0]))
    }

    @Test func prefersIPv4AndNeedsAnAddress() throws {
        let addresses = try ["2606:4700:4700::1111", "1.1.1.1"].map { try #require(IPAddress($0)) }
        #expect(AddressPolicy.target(among: addresses, allowPrivate: false) == .success(addresses[1]))
        #expect(AddressPolicy.target(among: [addresses[0]], allowPrivate: false) == .success(addresses[0]))
        #expect(AddressPolicy.target(among: [], allowPrivate: true) == .failure(.init(description: "the host has no address")))
    }
}
