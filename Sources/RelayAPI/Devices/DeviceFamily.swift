import HTTPServer
import PostgresStore
import RelayCore
import RelayStore

/// The device family's error codes (`/v3/devices`, `/v3/tags`, `/v3/aliases`): JPush answers
/// these calls with 7xxx codes, not the push family's 1xxx.
enum DeviceFamily {
    static let authenticationFailed = JPushError(status: 401, code: 7004, message: "authentication failed: Basic app_key:master_secret required")

    static func illegal(_ message: String) -> JPushError {
        JPushError(status: 400, code: 7002, message: message)
    }

    /// The device family's version of any error a handler throws.
    static func translate(_ error: any Error, logger: Logger) -> JPushError {
        if let field = error as? DeviceFieldError { return illegal(field.message) }
        return jpushError(for: error, logger: logger, recoding: [1002: 7002, 1003: 7002, 1009: 7002, 1030: 7030, 1000: 7000])
    }
}

extension RouteContext {
    /// A device-family route: Basic auth failing is 401 with code 7004, and every error the
    /// body throws is answered in 7xxx codes.
    func deviceHandler(
        _ body: @escaping @Sendable (HTTPRequest, RouteParameters, AuthenticatedApp) async throws -> HTTPResponse
    ) -> Router.Handler {
        familyHandler(failure: DeviceFamily.authenticationFailed, translate: { DeviceFamily.translate($0, logger: $1) }, body)
    }
}

/// JPush's device calls answer success with 200 and an empty body.
let emptySuccess = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"])
