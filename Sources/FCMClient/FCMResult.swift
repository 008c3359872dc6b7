import APNSClient
import Foundation
import RelayCore

/// What became of one message.
public enum FCMResult: Sendable, Hashable {
    /// FCM took it (200): `projects/{project_id}/messages/{message_id}`.
    case accepted(name: String)
    /// FCM answered an error.
    ///
    /// - `tokenProblem`: a 400 about the registration token itself (FCM's `FcmError` detail
    ///   without a `BadRequest` field violation, or one on `message.token`), not the payload.
    /// - `retryAfter`: the `Retry-After` header in seconds, when FCM sent one.
    case rejected(status: Int, error: FCMErrorCode, message: String, tokenProblem: Bool, retryAfter: Double?)
    /// No answer from FCM.
    case failed(FCMFailure)
}

/// Why a message got no answer from FCM.
public enum FCMFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message broke a rule checked before sending.
    case invalid(FCMValidationError)
    /// No access token could be obtained: the token endpoint refused the credential (`broken`)
    /// or could not be reached.
    case accessToken(String, broken: Bool)
    /// The connection machinery's failure (shared with APNs): no connection, timed out,
    /// expired before it could be sent, refused by the server's HTTP/2 layer, shut down.
    case transport(APNSFailure)

    public var description: String {
        switch self {
        case let .invalid(error): "invalid message: \(error)"
        case let .accessToken(detail, _): "no access token: \(detail)"
        case let .transport(failure): failure.description.replacingOccurrences(of: "APNs", with: "FCM")
        }
    }
}

extension FCMResult {
    /// Reads an FCM answer.
    ///
    /// - Parameters:
    ///   - status: the `:status`.
    ///   - body: the JSON body: `{"name":…}` on 200, `{"error":{code,message,status,details}}` otherwise.
    ///   - retryAfter: the `Retry-After` header, if any (seconds; an HTTP date counts as absent).
    public init(status: Int, body: [UInt8], retryAfter: String?) {
        if status == 200 {
            self = .accepted(name: Self.name(in: body) ?? "")
            return
        }
        let error = (try? JSONDecoder().decode(Answer.self, from: Data(body)))?.error
        let details = error?.details ?? []
        let fcmCode = details.first { $0.type?.hasSuffix("google.firebase.fcm.v1.FcmError") == true }?.errorCode
        let violations = details
            .filter { $0.type?.hasSuffix("google.rpc.BadRequest") == true }
            .flatMap { $0.fieldViolations ?? [] }
            .compactMap(\.field)
        let code = FCMErrorCode(fcmCode ?? error?.status ?? "")
        let tokenProblem = status == 400 && code == .invalidArgument
            && (violations.isEmpty ? fcmCode != nil : violations.allSatisfy { $0 == "message.token" })
        self = .rejected(status: status, error: code, message: error?.message ?? "",
                         tokenProblem: tokenProblem, retryAfter: retryAfter.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) })
    }

    /// `name` of a 200's `{"name":…}`, read with `JSONParser`: one answer per device, and
    /// Foundation's `JSONDecoder` cost the relay more CPU than the rest of the send (perf, bench-fanout).
    private static func name(in body: [UInt8]) -> String? {
        var parser = JSONParser()
        guard case let .object(fields)? = try? parser.parse(body), case let .string(name)? = fields["name"] else { return nil }
        return name
    }

    /// FCM's error answer body.
    private struct Answer: Decodable {
        @Lenient var error: ErrorBody?
    }

    private struct ErrorBody: Decodable {
        @Lenient var status: String?
        @Lenient var message: String?
        @Lenient var details: [Detail]?
    }

    /// One of `details`: an `FcmError` (`errorCode`) or a `BadRequest` (`fieldViolations`).
    private struct Detail: Decodable {
        @Lenient var type: String?
        @Lenient var errorCode: String?
        @Lenient var fieldViolations: [FieldViolation]?

        enum CodingKeys: String, CodingKey {
            case type = "@type"
            case errorCode, fieldViolations
        }
    }

    private struct FieldViolation: Decodable {
        @Lenient var field: String?
    }
}
