import Foundation

/// A failure as JPush reports it: an HTTP status and `{"error":{"code":N,"message":"…"}}`.
///
/// JPush's server SDKs parse every non-200 body as this shape, so every error the relay
/// answers, from any route, is one of these.
public struct JPushError: Error, Sendable, Equatable, Encodable {
    public var status: Int
    public var code: Int
    public var message: String
    /// Push errors may name the message they are about.
    public var msgID: String?

    public init(status: Int, code: Int, message: String, msgID: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.msgID = msgID
    }

    /// The JSON body, e.g. `{"error":{"code":1004,"message":"…"}}`.
    public var body: [UInt8] {
        // Strings and integers always encode; the fallback still tells the client in JPush's shape.
        (try? JSONAnswer.bytes(self)) ?? Array(#"{"error":{"code":1000,"message":"internal error"}}"#.utf8)
    }

    /// The error object alone, to stand beside others in an answer (a batch push's entries).
    public func encode(to encoder: any Encoder) throws {
        try Body(self).encode(to: encoder)
    }

    /// `{"error":{"code":…,"message":…},"msg_id":…}`, `msg_id` only when set.
    private struct Body: Encodable {
        struct Detail: Encodable {
            var code: Int
            var message: String
        }

        var error: Detail
        var msgID: String?

        init(_ error: JPushError) {
            self.error = Detail(code: error.code, message: error.message)
            msgID = error.msgID
        }

        enum CodingKeys: String, CodingKey {
            case error, msgID = "msg_id"
        }
    }
}

extension JPushError {
    public static func internalError(_ message: String = "internal error") -> JPushError {
        JPushError(status: 500, code: 1000, message: message)
    }
    public static func methodNotAllowed(_ message: String = "method not allowed") -> JPushError {
        JPushError(status: 405, code: 1001, message: message)
    }
    public static func missingParameter(_ message: String) -> JPushError {
        JPushError(status: 400, code: 1002, message: message)
    }
    public static func illegalValue(_ message: String) -> JPushError {
        JPushError(status: 400, code: 1003, message: message)
    }
    public static func authenticationFailed(_ message: String = "authentication failed") -> JPushError {
        JPushError(status: 401, code: 1004, message: message)
    }
    public static func bodyTooLarge(_ message: String) -> JPushError {
        JPushError(status: 413, code: 1005, message: message)
    }
    public static func notFound(_ message: String = "no such API") -> JPushError {
        JPushError(status: 404, code: 7010, message: message)
    }
    public static func storageUnavailable(_ message: String = "storage unavailable, try again") -> JPushError {
        JPushError(status: 503, code: 1030, message: message)
    }
}
