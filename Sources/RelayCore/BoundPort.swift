import Foundation

/// The port a listening socket is bound to (after binding port 0, the one the kernel chose).
public func boundPort(of fd: Int32) -> Int? {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let result = withUnsafeMutableBytes(of: &storage) {
        getsockname(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
    }
    guard result == 0 else { return nil }
    return withUnsafeBytes(of: storage) { bytes in
        switch Int32(storage.ss_family) {
        case AF_INET: Int(UInt16(bigEndian: bytes.load(as: sockaddr_in.self).sin_port))
        case AF_INET6: Int(UInt16(bigEndian: bytes.load(as: sockaddr_in6.self).sin6_port))
        default: nil
        }
    }
}
