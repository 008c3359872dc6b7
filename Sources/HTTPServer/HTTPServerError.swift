/// Why the server could not start.
public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    /// Another socket already listens on the address.
    case addressInUse(host: String, port: Int)
    /// `host` is not a numeric IPv4 or IPv6 address.
    case invalidAddress(String)
    /// The listening socket could not be created; `errno` says why.
    case bindFailed(host: String, port: Int, errno: Int32)
    /// libevent could not set up an event loop.
    case setupFailed(String)
    /// `start()` was called twice.
    case alreadyStarted

    public var description: String {
        switch self {
        case .addressInUse(let host, let port): "address \(host):\(port) is already in use"
        case .invalidAddress(let host): "'\(host)' is not a numeric IPv4 or IPv6 address"
        case .bindFailed(let host, let port, let errno): "cannot listen on \(host):\(port) (errno \(errno))"
        case .setupFailed(let what): "HTTP server setup failed: \(what)"
        case .alreadyStarted: "the HTTP server was already started"
        }
    }
}
