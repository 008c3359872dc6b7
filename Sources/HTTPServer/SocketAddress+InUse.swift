import CSystem
import Foundation
import RelayCore

extension SocketAddress {
    /// Whether a plain bind (without SO_REUSEPORT) fails with EADDRINUSE: our listeners share
    /// the port with each other through SO_REUSEPORT, and this keeps them from silently
    /// sharing it with another server too.
    func isInUse() -> Bool {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        return withSockaddr { bind(fd, $0, $1) } != 0 && errno == EADDRINUSE
    }
}
