import HTTPServer
import RelayCore

/// Who a request comes from: the socket's peer, unless the peer is a trusted proxy, in which
/// case the right-most hop of its `X-Forwarded-For` (else `Forwarded: for=`) that is not a
/// trusted proxy. Hops to the left of that one are whatever the client wrote, so they are
/// never believed.
///
/// A proxy must append to the header it forwards (as nginx's `$proxy_add_x_forwarded_for`,
/// HAProxy's `option forwardfor` and cloud load balancers do); `X-Forwarded-For` is read when
/// present, so a proxy that writes only `Forwarded` must drop an incoming `X-Forwarded-For`.
struct ClientAddressResolver: Sendable {
    let trustedProxies: [IPNetwork]

    /// - Parameters:
    ///   - peer: "host:port" of the socket's peer.
    /// - Returns: nil when the peer is not an address (in-process requests).
    func client(peer: String, headers: HTTPHeaders) -> IPAddress? {
        guard var current = IPAddress(hostAndPort: peer) else { return nil }
        guard isTrusted(current) else { return current }
        for hop in Self.forwardedHops(headers).reversed() {
            // An entry that is no address ("unknown", an obfuscated name): the proxy that
            // wrote it is the nearest address known.
            guard let address = IPAddress(hostAndPort: hop) else { return current }
            guard isTrusted(address) else { return address }
            current = address
        }
        return current
    }

    func client(of request: HTTPRequest) -> IPAddress? {
        client(peer: request.remoteAddress, headers: request.headers)
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// The hops the proxies recorded, client first: every `X-Forwarded-For` entry in order, or
    /// without one, the `for=` of every `Forwarded` element.
    static func forwardedHops(_ headers: HTTPHeaders) -> [Substring] {
        let forwardedFor = headers.values(for: "X-Forwarded-For")
        if !forwardedFor.isEmpty {
            return forwardedFor.flatMap { $0.split(separator: ",") }
        }
        return headers.values(for: "Forwarded").flatMap { $0.split(separator: ",") }.map { element in
            let pair = element.split(separator: ";").first { $0.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("for=") }
            return pair.map { $0.drop { $0 != "=" }.dropFirst() } ?? ""
        }
    }
}
