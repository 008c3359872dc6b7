import APNSClient
import Foundation
import Testing
@testable import FCMClient

/// FCM's answers, as Google documents them (docs/fcm.md), read into results and actions.
@Suite struct FCMActionTests {
    private static func error(_ code: Int, _ status: String, _ message: String, fcm: String? = nil, fields: [String] = []) -> [UInt8] {
        var details: [[String: Any]] = []
        if let fcm { details.append(["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": fcm]) }
        if !fields.isEmpty {
            details.append(["@type": "type.googleapis.com/google.rpc.BadRequest",
                            "fieldViolations": fields.map { ["field": $0, "description": "bad"] }])
        }
        let object: [String: Any] = ["error": ["code": code, "message": message, "status": status, "details": details]]
        return Array(try! JSONSerialization.data(withJSONObject: object))
    }

    private static func action(_ status: Int, _ body: [UInt8], retryAfter: String? = nil) -> FCMAction {
        FCMAction(for: FCMResult(status: status, body: body, retryAfter: retryAfter))
    }

    @Test func acceptedCarriesTheMessageName() {
        let result = FCMResult(status: 200, body: Array(#"{"name":"projects/p/messages/0:123"}"#.utf8), retryAfter: nil)
        #expect(result == .accepted(name: "projects/p/messages/0:123"))
        #expect(FCMAction(for: result) == .sent)
    }

    @Test func deadTokensAreInvalidated() {
        #expect(Self.action(404, Self.error(404, "NOT_FOUND", "Requested entity was not found.", fcm: "UNREGISTERED"))
            == .invalidateToken(reason: "UNREGISTERED"))
        #expect(Self.action(403, Self.error(403, "PERMISSION_DENIED", "SenderId mismatch", fcm: "SENDER_ID_MISMATCH"))
            == .invalidateToken(reason: "SENDER_ID_MISMATCH"))
        // Google's answer to a malformed token: the FcmError detail alone, no field violation.
        #expect(Self.action(400, Self.error(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
                                            fcm: "INVALID_ARGUMENT")) == .invalidateToken(reason: "INVALID_ARGUMENT"))
        #expect(Self.action(400, Self.error(400, "INVALID_ARGUMENT", "bad token", fields: ["message.token"]))
            == .invalidateToken(reason: "INVALID_ARGUMENT"))
    }

    @Test func payloadErrorsFailTheMessageWithTheReason() {
        let body = Self.error(400, "INVALID_ARGUMENT", "Invalid value at 'message.data[0].value' (TYPE_STRING), 12",
                              fields: ["message.data[0].value"])
        #expect(Self.action(400, body)
            == .failMessage(reason: "INVALID_ARGUMENT: Invalid value at 'message.data[0].value' (TYPE_STRING), 12"))
        // Without any detail, an INVALID_ARGUMENT cannot be pinned on the token: the message fails, the device stays.
        #expect(Self.action(400, Self.error(400, "INVALID_ARGUMENT", "Request contains an invalid argument."))
            == .failMessage(reason: "INVALID_ARGUMENT: Request contains an invalid argument."))
        #expect(Self.action(413, []) == .failMessage(reason: "UNSPECIFIED_ERROR"))
    }

    @Test func overloadAndQuotaAreRetriedHonouringRetryAfter() {
        #expect(Self.action(429, Self.error(429, "RESOURCE_EXHAUSTED", "quota", fcm: "QUOTA_EXCEEDED"), retryAfter: "30")
            == .retry(after: 30))
        #expect(Self.action(503, Self.error(503, "UNAVAILABLE", "busy", fcm: "UNAVAILABLE"), retryAfter: " 7 ") == .retry(after: 7))
        #expect(Self.action(500, Self.error(500, "INTERNAL", "oops", fcm: "INTERNAL")) == .retry(after: nil))
        // An HTTP date is not seconds: backoff applies.
        #expect(Self.action(503, [], retryAfter: "Wed, 21 Oct 2026 07:28:00 GMT") == .retry(after: nil))
    }

    @Test func refusedCredentialsAreBroken() {
        #expect(Self.action(401, Self.error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."))
            == .credentialsBroken(reason: "UNAUTHENTICATED: Request had invalid authentication credentials."))
        #expect(Self.action(401, Self.error(401, "UNAUTHENTICATED", "APNs", fcm: "THIRD_PARTY_AUTH_ERROR"))
            == .credentialsBroken(reason: "THIRD_PARTY_AUTH_ERROR: APNs"))
        #expect(Self.action(403, Self.error(403, "PERMISSION_DENIED", "no permission"))
            == .credentialsBroken(reason: "PERMISSION_DENIED: no permission"))
        #expect(FCMAction(for: .failed(.accessToken("invalid_grant", broken: true))) == .credentialsBroken(reason: "invalid_grant"))
        #expect(FCMAction(for: .failed(.accessToken("unreachable", broken: false))) == .retry(after: nil))
    }

    @Test func failuresBeforeOrWithoutAnAnswer() {
        #expect(FCMAction(for: .failed(.invalid(.badToken))) == .invalidateToken(reason: "InvalidRegistration"))
        #expect(FCMAction(for: .failed(.invalid(.notAnObject))) == .failMessage(reason: "invalid message: message is not a JSON object"))
        #expect(FCMAction(for: .failed(.transport(.expired))) == .failMessage(reason: "Expired"))
        for failure in [APNSFailure.timedOut, .shutdown, .connectionFailed("reset")] {
            #expect(FCMAction(for: .failed(.transport(failure))) == .retry(after: nil))
        }
    }

    @Test func aGarbledBodyIsStillClassifiedByStatus() {
        #expect(Self.action(404, Array("<html>".utf8)) == .invalidateToken(reason: "UNREGISTERED"))
        #expect(Self.action(502, Array("<html>".utf8)) == .retry(after: nil))
    }
}
