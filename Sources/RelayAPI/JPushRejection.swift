import HTTPServer
import RelayCore

/// The relay's answers to what its HTTP server refuses before any handler runs: JPush's
/// error shape, as for every other error, so JPush's SDKs read them alike.
public enum JPushRejection {
    /// The `HTTPRejection.Responder` the relay's router is built with.
    public static let responder: HTTPRejection.Responder = { .error(error(for: $0)) }

    public static func error(for rejection: HTTPRejection) -> JPushError {
        switch rejection {
        case .malformedRequest(let detail): .illegalValue("malformed HTTP request" + (detail.map { ": " + $0 } ?? ""))
        case .bodyTooLarge(let limit): .bodyTooLarge("request body exceeds \(limit) bytes")
        case .malformedTarget(let part): .illegalValue("malformed percent-encoding in \(part)")
        case .methodNotSupported: JPushError(status: 405, code: 1001, message: "method not supported")
        case .refused(let status): JPushError(status: status, code: 1000, message: "request rejected")
        case .busy: JPushError(status: 503, code: 1030, message: "server busy, try again")
        case .connectionRefused(let reason): JPushError(status: 503, code: 1030, message: reason + ", try again")
        case .noRoute: .notFound()
        case .methodNotAllowed: .methodNotAllowed()
        }
    }
}

extension HTTPResponse {
    /// The error's status with its JPush-shaped JSON body.
    public static func error(_ error: JPushError) -> HTTPResponse {
        json(error.status, error.body)
    }
}
