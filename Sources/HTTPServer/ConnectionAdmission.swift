/// Whether a new connection is admitted, by its source address, so that no one address can
/// take the connections every other client needs.
///
/// Three rules, in order:
/// - an address never holds more than `maxPerAddress` connections;
/// - once the server is near its cap (`nearFull`, nine tenths of it), an address holding its
///   fair share (the cap divided among the addresses connected) or more gets no further one;
/// - at the cap, a newcomer under its share is still admitted when the heaviest address
///   holds more than its share: one of that address's idle connections is closed for it.
///
/// Pure; the server keeps one behind a mutex, shared by its event loops. Addresses are
/// `key(forPeer:)`s: IPv4 addresses whole, IPv6 ones by their /64 (one host's usual share).
struct ConnectionAdmission: Equatable {
    enum Decision: Equatable {
        case admit
        /// Admitted (and counted); close one idle connection of `address` to make room,
        /// or call `evictionFailed` when there is none.
        case admitEvicting(address: String)
        case refuse(Refusal)
    }

    enum Refusal: Equatable {
        /// The address holds `maxPerAddress` connections.
        case addressCap
        /// The server is near its cap and the address holds its fair share.
        case fairShare
        /// The server is at its cap and no address holds more than its share.
        case serverFull
    }

    let maxConnections: Int
    let maxPerAddress: Int
    private(set) var total = 0
    private var byAddress: [String: Int] = [:]

    init(maxConnections: Int, maxPerAddress: Int) {
        self.maxConnections = max(1, maxConnections)
        self.maxPerAddress = max(1, maxPerAddress)
    }

    /// Where the fair-share rule starts: nine tenths of the cap.
    var nearFull: Int { maxConnections - maxConnections / 10 }

    func connections(from address: String) -> Int { byAddress[address, default: 0] }

    /// A connection from `address` was accepted: admits (and counts) it or refuses it.
    mutating func opened(from address: String) -> Decision {
        let held = connections(from: address)
        guard held < maxPerAddress else { return .refuse(.addressCap) }
        if total < nearFull { return count(address) }
        let addresses = byAddress.count + (held == 0 ? 1 : 0)
        let share = max(1, maxConnections / addresses)
        guard held < share else { return .refuse(.fairShare) }
        if total < maxConnections { return count(address) }
        guard let heaviest = byAddress.max(by: { $0.value < $1.value }), heaviest.value > share else {
            return .refuse(.serverFull)
        }
        _ = count(address)
        return .admitEvicting(address: heaviest.key)
    }

    /// An `admitEvicting` found no idle connection to close: the newcomer is refused after all.
    mutating func evictionFailed(newcomer address: String) {
        closed(from: address)
    }

    /// An admitted connection from `address` has closed.
    mutating func closed(from address: String) {
        guard let held = byAddress[address] else { return }
        total -= 1
        byAddress[address] = held > 1 ? held - 1 : nil
    }

    private mutating func count(_ address: String) -> Decision {
        total += 1
        byAddress[address, default: 0] += 1
        return .admit
    }

    /// The address a peer's connections are counted under: an IPv4 address as it is, an
    /// IPv6 address by its first 64 bits (a single host usually holds a whole /64).
    static func key(forPeer host: String) -> String {
        guard host.contains(":"), !host.hasPrefix("::ffff:") else { return host }
        let groups = expandedIPv6Groups(host)
        guard groups.count == 8 else { return host }
        return groups.prefix(4).joined(separator: ":") + "::/64"
    }

    /// The eight groups of a textual IPv6 address, "::" expanded; empty when malformed.
    private static func expandedIPv6Groups(_ host: String) -> [String] {
        let halves = host.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false).map {
            $0.split(separator: ":").map { String($0.lowercased()) }
        }
        if halves.count == 1 { return halves[0] }
        let missing = 8 - halves[0].count - halves[1].count
        guard missing > 0 else { return [] }
        return halves[0] + Array(repeating: "0", count: missing) + halves[1]
    }
}
