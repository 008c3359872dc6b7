import HTTPServer
import RelayCore
import RelayCrypto

/// Who may read `/metrics` (it names every app key): with `PUSHRELAY_METRICS_TOKEN` set,
/// whoever presents it as `Authorization: Bearer`; without, only a client on this machine,
/// whose socket peer is a loopback address and whose request names no one it forwards for
/// (a reverse proxy on the same host would otherwise pass the world in).
enum MetricsAccess: Sendable, Equatable {
    case token([UInt8])
    case loopbackOnly

    enum Verdict: Sendable, Equatable {
        case allowed
        /// A token is set and the request did not present it.
        case wrongToken
        /// No token is set and the request is not from this machine.
        case notLoopback
    }

    init(token: String?) {
        self = token.map { .token(Array($0.utf8)) } ?? .loopbackOnly
    }

    func verdict(peer: String, headers: HTTPHeaders) -> Verdict {
        switch self {
        case .token(let expected):
            let presented = AdminAuthorizer.bearerToken(headers["authorization"]).map { Array($0.utf8) } ?? []
            return Digest.constantTimeEqual(presented, expected) ? .allowed : .wrongToken
        case .loopbackOnly:
            let local = IPAddress(hostAndPort: peer)?.isLoopback == true
                && !headers.contains("X-Forwarded-For") && !headers.contains("Forwarded")
            return local ? .allowed : .notLoopback
        }
    }

    static let wrongTokenError = JPushError.authenticationFailed("/metrics needs Authorization: Bearer <PUSHRELAY_METRICS_TOKEN>")
    static let notLoopbackError = JPushError(
        status: 403, code: 1004, message: "/metrics answers clients on this machine only; set PUSHRELAY_METRICS_TOKEN to scrape it from elsewhere")
}
