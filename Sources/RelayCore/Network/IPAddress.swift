import Foundation

/// A numeric IPv4 or IPv6 address as its bytes (4 or 16). An IPv4-mapped IPv6 address
/// (`::ffff:192.0.2.1`, what a dual-stack listener reports) is its IPv4 address, so it
/// compares with IPv4 networks.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Nil unless `text` is a numeric address (no brackets, no port, no zone).
    public init?(_ text: some StringProtocol) {
        let text = String(text)
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            let all = withUnsafeBytes(of: v6) { Array($0) }
            bytes = all.prefix(12) == Self.mappedPrefix[...] ? Array(all.suffix(4)) : all
        } else {
            return nil
        }
    }

    /// Nil unless `bytes` holds 4 or 16 bytes in network order, as a `sockaddr_in(6)` does.
    public init?(networkBytes bytes: some Collection<UInt8>) {
        switch bytes.count {
        case 4: self.bytes = Array(bytes)
        case 16: self.bytes = bytes.prefix(12).elementsEqual(Self.mappedPrefix) ? Array(bytes.suffix(4)) : Array(bytes)
        default: return nil
        }
    }

    /// The host of `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address, as
    /// `X-Forwarded-For` entries, `Forwarded: for=` values and peer addresses are written.
    public init?(hostAndPort text: some StringProtocol) {
        var text = Substring(text).trimmingCharacters(in: .whitespaces)[...]
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = text.dropFirst().dropLast() }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            self.init(text[text.index(after: text.startIndex)..<close])
        } else if let colon = text.firstIndex(of: ":"), text.lastIndex(of: ":") == colon {
            self.init(text[..<colon])
        } else {
            self.init(text)
        }
    }

    private static let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]

    public var isIPv4: Bool { bytes.count == 4 }

    /// 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        isIPv4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1]
    }

    /// The address with every bit past the first `prefixLength` cleared.
    public func masked(to prefixLength: Int) -> IPAddress {
        var copy = bytes
        for index in copy.indices {
            let kept = min(8, max(0, prefixLength - index * 8))
            copy[index] &= kept == 8 ? 0xff : ~(0xff >> kept)
        }
        return IPAddress(bytes: copy)
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// The canonical text (`192.0.2.1`, `2001:db8::1`).
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return bytes.map(String.init).joined(separator: ".") }
        return String(cString: buffer)
    }
}

/// An address block, `192.0.2.0/24` or `2001:db8::/32`; a bare address is a block of one.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    public let address: IPAddress
    public let prefixLength: Int

    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        var length = address.bytes.count * 8
        if parts.count == 2 {
            // Written against 128 bits for `::ffff:10.0.0.0/104`, stored as IPv4.
            let written = parts[0].contains(":") ? 128 : 32
            guard parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let given = Int(parts[1]), (0...written).contains(given) else { return nil }
            length = given - (written - address.bytes.count * 8)
            guard length >= 0 else { return nil }
        }
        self.address = address.masked(to: length)
        prefixLength = length
    }

    public func contains(_ other: IPAddress) -> Bool {
        other.bytes.count == address.bytes.count && other.masked(to: prefixLength) == address
    }

    public var description: String { "\(address)/\(prefixLength)" }
}
