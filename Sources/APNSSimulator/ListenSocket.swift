import CSystem
import Foundation

/// A listening socket on `host:port` for `base`, disabled: it accepts once enabled on the
/// base's loop (`evconnlistener_enable`).
///
/// - Parameter reusePort: SO_REUSEPORT, for listeners sharing one port.
func bindListener(
    base: OpaquePointer, host: String, port: Int, reusePort: Bool, callback: evconnlistener_cb?,
    context: UnsafeMutableRawPointer?
) throws -> OpaquePointer {
    let flags = LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC | LEV_OPT_REUSEABLE | LEV_OPT_DISABLED
        | (reusePort ? LEV_OPT_REUSEABLE_PORT : 0)
    return try withListenAddress(host: host, port: port) { address in
        guard let listener = evconnlistener_new_bind(
            base, callback, context, UInt32(flags), 1024, address.ai_addr, Int32(address.ai_addrlen)
        ) else {
            throw APNSSimulatorError("cannot listen on \(host):\(port): \(String(cString: strerror(errno)))")
        }
        return listener
    }
}

/// `host:port` resolved (numerically) for listening, handed to `body`.
func withListenAddress<Result>(host: String, port: Int, _ body: (addrinfo) throws -> Result) throws -> Result {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
    var resolved: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &resolved) == 0, let resolved else {
        throw APNSSimulatorError("cannot resolve \(host)")
    }
    defer { freeaddrinfo(resolved) }
    return try body(resolved.pointee)
}
