import Foundation

/// What went wrong talking to the relay.
public enum PushRelayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The relay refused: the HTTP status, JPush's code (1004 bad credentials, 1003 illegal
    /// value, 7002 bad device parameter, 8104 no such schedule, …) and message; pushes
    /// refused after a msg_id was assigned (1011: nobody matched) carry it.
    case api(status: Int, code: Int, message: String, msgID: String?)
    /// The relay answered something that is not the JPush shape.
    case unreadableResponse(status: Int, body: String)
    /// No answer: connection refused, timed out, offline.
    case transport(String)
    /// Not sent: these credentials may not make the call (a client key cannot set the alias,
    /// tags or badge; the app's backend does, with the master secret).
    case notAllowed(String)

    /// JPush's error code, when the relay gave one.
    public var code: Int? {
        if case .api(_, let code, _, _) = self { return code }
        return nil
    }

    /// Whether the same request may succeed later: no answer, rate limited, or a relay
    /// that is busy or failing (5xx). Bad input and bad credentials never get better.
    public var isTransient: Bool {
        switch self {
        case .transport: true
        case .notAllowed: false
        case .api(let status, _, _, _), .unreadableResponse(let status, _): status == 429 || status >= 500
        }
    }

    public var description: String {
        switch self {
        case .api(let status, let code, let message, _): "PushRelay error \(code) (HTTP \(status)): \(message)"
        case .unreadableResponse(let status, let body): "PushRelay answered HTTP \(status) with an unreadable body: \(body.prefix(200))"
        case .transport(let reason): "PushRelay unreachable: \(reason)"
        case .notAllowed(let reason): "Not allowed: \(reason)"
        }
    }

    /// The error a non-200 reply stands for.
    static func from(status: Int, body: Data) -> PushRelayError {
        struct Envelope: Decodable {
            struct Detail: Decodable {
                var code: Int
                var message: String
            }
            var error: Detail
            var msg_id: JSONValue?
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: body) else {
            return .unreadableResponse(status: status, body: String(decoding: body, as: UTF8.self))
        }
        return .api(status: status, code: envelope.error.code, message: envelope.error.message, msgID: envelope.msg_id?.stringValue)
    }
}
