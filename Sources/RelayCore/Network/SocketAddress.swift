import Foundation

/// A numeric IPv4 or IPv6 address and port as the `sockaddr` libevent binds and connects to.
public struct SocketAddress: Sendable {
    private let storage: sockaddr_storage
    public let length: socklen_t
    public let family: Int32

    /// Nil unless `host` is a numeric address (no brackets, no zone).
    public init?(host: String, port: Int) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            self.init(family: AF_INET, address: withUnsafeBytes(of: v4) { Array($0) }, port: port)
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            self.init(family: AF_INET6, address: withUnsafeBytes(of: v6) { Array($0) }, port: port)
        } else {
            return nil
        }
    }

    public init(_ address: IPAddress, port: Int) {
        self.init(family: address.isIPv4 ? AF_INET : AF_INET6, address: address.bytes, port: port)
    }

    private init(family: Int32, address: [UInt8], port: Int) {
        let port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        if family == AF_INET {
            var v4 = sockaddr_in()
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port
            withUnsafeMutableBytes(of: &v4.sin_addr) { $0.copyBytes(from: address) }
            (storage, length) = Self.stored(v4)
        } else {
            var v6 = sockaddr_in6()
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port
            withUnsafeMutableBytes(of: &v6.sin6_addr) { $0.copyBytes(from: address) }
            (storage, length) = Self.stored(v6)
        }
        self.family = family
    }

    private static func stored<Address>(_ address: Address) -> (sockaddr_storage, socklen_t) {
        var storage = sockaddr_storage()
        withUnsafeBytes(of: address) { bytes in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) } }
        return (storage, socklen_t(MemoryLayout<Address>.size))
    }

    public func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafeBytes(of: storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), length) }
    }
}
