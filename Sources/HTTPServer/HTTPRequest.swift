import RelayCore

/// A complete HTTP request as a handler sees it: the body is fully read, the target decoded.
public struct HTTPRequest: Sendable {
    /// Upper case: "GET", "POST", …
    public var method: String
    /// The target as received.
    public var uri: String
    /// The percent-decoded path, without the query.
    public var path: String
    /// Decoded query parameters; when a name repeats, the last value wins.
    public var query: [String: String]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The client's valid `X-Request-Id`, or a generated one; every response echoes it.
    public var requestID: String
    /// "host:port" of the peer.
    public var remoteAddress: String

    /// Builds a request, decoding `uri` into `path` and `query`.
    ///
    /// - Parameters:
    ///   - requestID: nil takes a valid `X-Request-Id` from `headers` or generates one.
    /// - Throws: `HTTPRejection.malformedTarget` (400) when `uri` does not decode.
    public init(
        method: String, uri: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        requestID: String? = nil, remoteAddress: String = ""
    ) throws(HTTPRejection) {
        let target = try RequestTarget(parsing: uri)
        self.method = method.uppercased()
        self.uri = uri
        self.path = target.path
        self.query = target.query
        self.headers = headers
        self.body = body
        self.requestID = requestID ?? RequestID.from(incoming: headers["X-Request-Id"])
        self.remoteAddress = remoteAddress
    }
}
