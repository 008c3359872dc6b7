import Foundation

/// Where and how an `APNSClient` talks to APNs, and the bounds it keeps.
public struct APNSClientConfiguration: Sendable {
    /// How requests are authorized.
    public enum Authentication: Sendable {
        /// A provider token (JWT) signed with the `.p8` key, on every request.
        case token(keyPEM: String, keyID: String, teamID: String)
        /// A TLS client certificate (PEM, leaf first, intermediates after) and its key.
        case certificate(certificatePEM: String, keyPEM: String)
        /// Each message carries its own `authorization` (FCM's OAuth2 access token): the
        /// client adds none.
        case perRequest
    }

    /// The APNs production endpoint.
    public static let productionURL = URL(string: "https://api.push.apple.com")!
    /// The APNs sandbox (development) endpoint.
    public static let sandboxURL = URL(string: "https://api.sandbox.push.apple.com")!

    public var host: String
    public var port: Int
    /// PEM CA certificates trusted besides the system's (for a simulator or a proxy).
    public var caFile: String?
    public var authentication: Authentication
    /// Connections while the round trip does not limit the rate (APNs next door).
    public var connections: Int = 2
    /// The most connections open at once: more than `connections` open only while the
    /// round trip limits the rate and the streams of the open ones are full (`InFlightWindow`).
    public var maxConnections: Int = 32
    /// `send` calls waiting for an answer at once at first, and never fewer: the in-flight
    /// window grows from here with the bandwidth-delay product; further calls suspend.
    public var minInFlight: Int = 2000
    /// The most `send` calls waiting for an answer at once (the window's ceiling).
    public var maxInFlight: Int = 32000
    /// How many loops of the client's `EventLoopGroup` its connections are spread over
    /// (each takes a share of `maxConnections`); no thread of its own.
    public var eventLoopCount: Int = 1
    /// How long a TLS + HTTP/2 handshake may take.
    public var connectTimeout: TimeInterval = 10
    /// How long APNs may take to answer a sent request before it fails as `timedOut`.
    public var responseTimeout: TimeInterval = 30
    /// How long a request may wait for a usable connection before it fails.
    public var queueTimeout: TimeInterval = 60
    /// How many connections a request may see die under it before it fails.
    public var maxAttempts: Int = 5
    /// Connection attempts failing in a row after which waiting requests fail.
    public var maxConnectFailures: Int = 8
    /// The first reconnect delay, doubled on each failure in a row (with jitter) up to `maxReconnectDelay`.
    public var reconnectDelay: TimeInterval = 0.1
    public var maxReconnectDelay: TimeInterval = 10
    /// A connection without a request for this long is closed; the next request opens one
    /// again (resuming the TLS session). Connections are reused, not churned: keep it minutes.
    public var idleTimeout: TimeInterval = 300
    /// A connection idle this long is sent a PING; one not answered in `pingTimeout` is closed.
    public var pingInterval: TimeInterval = 60
    public var pingTimeout: TimeInterval = 10

    /// - Parameters:
    ///   - endpoint: `https://host[:port]`; see `productionURL` and `sandboxURL`.
    ///   - authentication: token or certificate.
    ///   - caFile: extra trusted CAs, PEM.
    public init(endpoint: URL, authentication: Authentication, caFile: String? = nil) throws {
        guard endpoint.scheme == "https", let host = endpoint.host, !host.isEmpty else {
            throw APNSConfigurationError.badEndpoint(endpoint.absoluteString)
        }
        self.host = host
        self.port = endpoint.port ?? 443
        self.authentication = authentication
        self.caFile = caFile
    }

    /// The `:authority` of every request.
    var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 443 ? name : "\(name):\(port)"
    }
}

/// A configuration that cannot work.
public enum APNSConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    case badEndpoint(String)
    case badBound(String)

    public var description: String {
        switch self {
        case let .badEndpoint(url): "APNs endpoint must be https://host[:port], got \(url)"
        case let .badBound(name): "\(name) must be positive"
        }
    }
}
