import RelayCore

/// What a handler answers. The server adds `X-Request-Id`, and `Content-Type` when missing.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response: `Content-Type: application/json`.
    public static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }
}

/// Anything that turns a request into a response: the router, or a test double.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) async -> HTTPResponse

    /// The answer to a request the server refuses itself (see `HTTPRejection`).
    func response(to rejection: HTTPRejection) -> HTTPResponse
}
