import RelayCore

/// FCM's error answers, as Google sends them: `{"error":{"code","message","status","details":[…]}}`
/// with an `FcmError` detail (`errorCode`) and, for a bad field, a `BadRequest` one.
struct FCMErrorBody: Encodable {
    var error: Status

    struct Status: Encodable {
        var code: Int
        var message: String
        var status: String
        var details: [Detail]
    }

    /// An `FcmError` (`errorCode`) or a `BadRequest` (`fieldViolations`).
    struct Detail: Encodable {
        var type: String
        var errorCode: String?
        var fieldViolations: [FieldViolation]?

        enum CodingKeys: String, CodingKey {
            case type = "@type"
            case errorCode, fieldViolations
        }
    }

    struct FieldViolation: Encodable {
        var field: String
        var description: String
    }

    static func make(code: Int, status: String, message: String, errorCode: String? = nil, field: String? = nil) -> [UInt8] {
        var details: [Detail] = []
        if let errorCode { details.append(Detail(type: "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode: errorCode)) }
        if let field {
            details.append(Detail(type: "type.googleapis.com/google.rpc.BadRequest",
                                  fieldViolations: [FieldViolation(field: field, description: message)]))
        }
        return json(FCMErrorBody(error: Status(code: code, message: message, status: status, details: details)))
    }

    /// An OAuth2 token endpoint error: `{"error","error_description"}`.
    static func oauth(_ error: String, _ description: String) -> [UInt8] {
        json(OAuthError(error: error, errorDescription: description))
    }

    /// An answer's bytes: sorted keys, as every answer of the relay.
    static func json(_ answer: some Encodable) -> [UInt8] {
        // Strings, numbers, booleans and arrays of them always encode.
        (try? JSONAnswer.bytes(answer)) ?? Array("{}".utf8)
    }

    private struct OAuthError: Encodable {
        var error: String
        var errorDescription: String

        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }
}
