import RelayCore

/// The SSRF guard's rule: which addresses a webhook may reach. A webhook URL is chosen by an
/// app's admin, and the relay POSTs from inside the operator's network: without this rule a
/// URL could reach the metadata service (169.254.169.254), the database, or anything else
/// on the relay's side of the firewall.
///
/// Everything not globally routable unicast is refused: private, loopback, link-local,
/// shared (CGNAT), documentation, benchmarking, reserved, multicast and broadcast blocks,
/// and the IPv6 forms that carry an IPv4 address somewhere else (6to4, Teredo, NAT64 of a
/// refused IPv4 address). `IPAddress` already reads an IPv4-mapped IPv6 address as IPv4.
public enum AddressPolicy {
    /// A refused block and why.
    public struct Block: Sendable, Hashable, CustomStringConvertible {
        public let network: IPNetwork
        public let name: String

        public var description: String { "\(name) (\(network))" }
    }

    /// The block `address` lies in when it is not a public unicast address; nil when it may be reached.
    public static func nonPublicBlock(_ address: IPAddress) -> Block? {
        if !address.isIPv4, nat64.contains(address) {
            return nonPublicBlock(IPAddress(embeddedIn: address))
        }
        return blocks.first { $0.network.contains(address) }
    }

    /// The well-known NAT64 prefix: the last 4 bytes are an IPv4 address, judged as such.
    private static let nat64 = IPNetwork("64:ff9b::/96")!

    /// In lookup order: narrower blocks first where they nest, so the name is the precise one.
    static let blocks: [Block] = [
        ("0.0.0.0/8", "this network"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "IETF protocol assignments"),
        ("192.0.2.0/24", "documentation"),
        ("192.88.99.0/24", "6to4 relay anycast"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("255.255.255.255/32", "broadcast"),
        ("240.0.0.0/4", "reserved"),
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("::/96", "IPv4-compatible (deprecated)"),
        ("64:ff9b:1::/48", "local-use NAT64"),
        ("100::/64", "discard-only"),
        ("2001:db8::/32", "documentation"),
        ("2001::/23", "IETF protocol assignments (Teredo and others)"),
        ("2002::/16", "6to4"),
        ("3fff::/20", "documentation"),
        ("fc00::/7", "unique local"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local (deprecated)"),
        ("ff00::/8", "multicast"),
    ].map { Block(network: IPNetwork($0.0)!, name: $0.1) }
}

extension IPAddress {
    /// The IPv4 address in the last 4 bytes of an IPv6 one (NAT64).
    fileprivate init(embeddedIn address: IPAddress) {
        self.init(networkBytes: address.bytes.suffix(4))!
    }
}

extension AddressPolicy {
    /// The address to connect to among those a host resolved to, or why none may be used:
    /// every address is checked (a name with one private address among public ones is
    /// refused, as the next lookup might pick that one), and the connection goes to exactly
    /// the address returned here, never through a second lookup (DNS rebinding).
    ///
    /// - Returns: the first IPv4 address, or the first address when there is none.
    public static func target(among addresses: [IPAddress], allowPrivate: Bool) -> Result<IPAddress, Refusal> {
        guard let first = addresses.first(where: \.isIPv4) ?? addresses.first else { return .failure(Refusal(description: "the host has no address")) }
        if !allowPrivate {
            for address in addresses {
                if let block = nonPublicBlock(address) {
                    return .failure(Refusal(description: "\(address) is not a public address: \(block) (PUSHRELAY_WEBHOOK_ALLOW_PRIVATE=1 allows it)"))
                }
            }
        }
        return .success(first)
    }

    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }
}
