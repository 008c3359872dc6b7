import RelayCore

/// Why a ctl command failed, and the exit code that says so.
enum CtlError: Error, Equatable, CustomStringConvertible {
    /// The command line is wrong (exit 2).
    case usage(String)
    /// The relay could not be reached (exit 3).
    case unreachable(String)
    /// The relay refused the credentials (401/403; exit 4).
    case unauthorized(String)
    /// What was asked for does not exist (404; exit 5).
    case notFound(String)
    /// Following a push gave up before it finished (exit 6).
    case timedOut(String)
    /// The relay refused the request otherwise, or a local file could not be read (exit 1).
    case failed(String)

    var exitCode: Int32 {
        switch self {
        case .failed: 1
        case .usage: 2
        case .unreachable: 3
        case .unauthorized: 4
        case .notFound: 5
        case .timedOut: 6
        }
    }

    var description: String {
        switch self {
        case .usage(let text), .unreachable(let text), .unauthorized(let text), .notFound(let text), .timedOut(let text),
             .failed(let text):
            text
        }
    }

    /// The error for an HTTP answer that is not a success: JPush's error message and code
    /// when the body has them.
    static func http(status: Int, body: JSONValue?) -> CtlError {
        let error = body?["error"]
        var text = error?["message"]?.text ?? "the relay answered HTTP \(status)"
        if let code = error?["code"] { text += " (HTTP \(status), code \(code.jsonText))" }
        switch status {
        case 401, 403: return .unauthorized(text)
        case 404: return .notFound(text)
        default: return .failed(text)
        }
    }
}
