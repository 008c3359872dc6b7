import Foundation

/// A listening TCP socket on 127.0.0.1 at a port the kernel picks, for test servers that
/// serve on threads of their own with blocking sockets.
public enum LoopbackListener {
    /// - Returns: the socket and its port, or nil when binding or listening failed.
    public static func open(backlog: Int32 = 64) -> (socket: Int32, port: Int)? {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && getsockname(listener, pointer, &length) == 0
            }
        } && listen(listener, backlog) == 0
        guard listening else {
            close(listener)
            return nil
        }
        return (listener, Int(UInt16(bigEndian: address.sin_port)))
    }
}
