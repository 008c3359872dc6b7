import Foundation

/// FCM's error answers, as Google sends them: `{"error":{"code","message","status","details":[…]}}`
/// with an `FcmError` detail (`errorCode`) and, for a bad field, a `BadRequest` one.
enum FCMErrorBody {
    static func make(code: Int, status: String, message: String, errorCode: String? = nil, field: String? = nil) -> [UInt8] {
        var details: [[String: Any]] = []
        if let errorCode { details.append(["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": errorCode]) }
        if let field {
            details.append(["@type": "type.googleapis.com/google.rpc.BadRequest",
                            "fieldViolations": [["field": field, "description": message]]])
        }
        let object: [String: Any] = ["error": ["code": code, "message": message, "status": status, "details": details]]
        return json(object)
    }

    /// An OAuth2 token endpoint error: `{"error","error_description"}`.
    static func oauth(_ error: String, _ description: String) -> [UInt8] {
        json(["error": error, "error_description": description])
    }

    static func json(_ object: [String: Any]) -> [UInt8] {
        // Strings, numbers, arrays and dictionaries of them always serialize.
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map(Array.init) ?? Array("{}".utf8)
    }
}
