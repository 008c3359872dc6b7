import Foundation
import HTTPServer
import PostgresStore
import RelayCore

/// A JSON response from an `Encodable` answer (`JSONAnswer`: the one encoding of answers).
func jsonResponse(_ status: Int, encoding answer: some Encodable) throws -> HTTPResponse {
    HTTPResponse.json(status, try JSONAnswer.bytes(answer))
}

/// A JSON response from a `JSONValue` (numbers exactly as parsed).
func jsonResponse(_ status: Int, _ value: JSONValue) -> HTTPResponse {
    HTTPResponse.json(status, CanonicalJSON.bytes(value))
}

/// Wraps a throwing handler: a `JPushError` becomes its own response, a lost database a
/// 503 (code 1030), anything else a logged 500 that says nothing of the internals.
func handler(
    _ logger: Logger,
    _ body: @escaping @Sendable (HTTPRequest, RouteParameters) async throws -> HTTPResponse
) -> Router.Handler {
    { request, parameters in
        do {
            return try await body(request, parameters)
        } catch {
            return HTTPResponse.error(jpushError(for: error, logger: logger.with(["request_id": request.requestID])))
        }
    }
}

func jpushError(for error: any Error, logger: Logger) -> JPushError {
    switch error {
    case let error as JPushError:
        return error
    case PostgresError.protocolViolation(let reason) where reason.hasSuffix("contains a NUL byte"):
        // PostgreSQL text cannot hold NUL: input a route passed on unchecked, so the client's fault.
        return .illegalValue("text parameters must not contain NUL (\\u0000)")
    case PostgresError.unavailable(let reason):
        logger.warning("database unavailable", ["reason": reason])
        return .storageUnavailable()
    default:
        logger.error("request failed", ["error": "\(error)"])
        return .internalError()
    }
}

/// `jpushError(for:logger:)` in a family's own codes: `codes` maps a push-family code to the
/// family's; other codes stay.
func jpushError(for error: any Error, logger: Logger, recoding codes: [Int: Int]) -> JPushError {
    var mapped = jpushError(for: error, logger: logger)
    mapped.code = codes[mapped.code] ?? mapped.code
    return mapped
}
