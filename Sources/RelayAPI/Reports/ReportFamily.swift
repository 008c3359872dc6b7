import HTTPServer
import RelayCore

/// The report family's error codes (`/v3/received`, `/v3/messages/detail`,
/// `/v3/status/message`): JPush answers these calls with 3xxx codes.
enum ReportFamily {
    static let authenticationFailed = JPushError(status: 401, code: 3001, message: "authentication failed: Basic app_key:master_secret required")

    /// A parameter JPush's report API would refuse: a malformed msg_id, a bad body.
    static func invalid(_ message: String) -> JPushError {
        JPushError(status: 400, code: 3002, message: message)
    }

    /// More ids in one call than the API answers.
    static func tooMany(_ message: String) -> JPushError {
        JPushError(status: 400, code: 3005, message: message)
    }

    /// The report family's version of any error a handler throws: the push family's
    /// parameter codes become 3002; storage and internal errors keep their codes.
    static func translate(_ error: any Error, logger: Logger) -> JPushError {
        jpushError(for: error, logger: logger, recoding: [1002: 3002, 1003: 3002, 1009: 3002])
    }
}

extension RouteContext {
    /// A report route: Basic auth failing is 401 with code 3001, and parameter errors the body
    /// throws are answered as 3002.
    func reportHandler(
        _ body: @escaping @Sendable (HTTPRequest, RouteParameters, AuthenticatedApp) async throws -> HTTPResponse
    ) -> Router.Handler {
        familyHandler(failure: ReportFamily.authenticationFailed, translate: { ReportFamily.translate($0, logger: $1) }, body)
    }

    /// An app route of a JPush family with codes of its own: Basic auth failing is
    /// `failure`, and every error the body throws is answered as `translate` maps it.
    func familyHandler(
        failure: JPushError, translate: @escaping @Sendable (_ error: any Error, _ logger: Logger) -> JPushError,
        _ body: @escaping @Sendable (HTTPRequest, RouteParameters, AuthenticatedApp) async throws -> HTTPResponse
    ) -> Router.Handler {
        let logger = logger
        return appHandler(failure: failure) { request, parameters, app in
            do {
                return try await body(request, parameters, app)
            } catch {
                throw translate(error, logger.with(["request_id": request.requestID]))
            }
        }
    }
}
