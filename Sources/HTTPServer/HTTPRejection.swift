/// Why the HTTP layer answers a request itself, before a handler runs or instead of one.
/// The server decides when, and with which status; the application decides what the answer
/// says: `Router` is built with its `HTTPRejection.Responder` (RelayAPI's answers in JPush's
/// error shape), and the server asks its responder.
public enum HTTPRejection: Error, Sendable, Equatable {
    /// The request head breaks HTTP/1.1's rules (`RequestHeadScreen`: `detail` says how), or
    /// libevent could not parse it (no detail).
    case malformedRequest(detail: String?)
    /// The body, declared or sent, is over `limit` bytes.
    case bodyTooLarge(limit: Int)
    /// The target's percent-encoding does not decode: `part` is "request path" or "query string".
    case malformedTarget(part: String)
    /// A method libevent does not serve (it answers 501 itself; for the client it is a
    /// method this server does not allow).
    case methodNotSupported
    /// Another error status libevent answered with a page of its own.
    case refused(status: Int)
    /// Too much is in flight (requests awaiting handlers, answers awaiting slow readers).
    case busy
    /// A new connection `ConnectionAdmission` refused; `reason` says why.
    case connectionRefused(reason: String)
    /// No route matches the path.
    case noRoute
    /// Routes match the path, none with the method.
    case methodNotAllowed

    /// What the application answers to a rejection. Its status is `rejection.status`.
    public typealias Responder = @Sendable (HTTPRejection) -> HTTPResponse

    public var status: Int {
        switch self {
        case .malformedRequest, .malformedTarget: 400
        case .bodyTooLarge: 413
        case .methodNotSupported, .methodNotAllowed: 405
        case .refused(let status): status
        case .busy, .connectionRefused: 503
        case .noRoute: 404
        }
    }
}
