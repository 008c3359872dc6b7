import APNSClient
import Testing
@testable import FCMClient
@testable import FCMSimulator

/// The token endpoint's answers read by the client, and `messages:send` bodies checked by the
/// simulator: the typed readers keep each rule, field by field.
@Suite struct FCMAnswerParsingTests {
    private static func token(_ status: Int, _ body: String) -> Result<(token: String, expiresIn: Double), FCMFailure> {
        TokenAnswer.read(.response(HTTP2Response(status: status, body: Array(body.utf8))))
    }

    @Test func tokenAnswers() {
        guard case let .success(granted) = Self.token(200, #"{"access_token":"ya29.x","expires_in":1800,"token_type":"Bearer"}"#) else {
            Issue.record("a grant was not read")
            return
        }
        #expect(granted.token == "ya29.x" && granted.expiresIn == 1800)
        // An odd expires_in counts as absent: the hour Google documents.
        guard case let .success(odd) = Self.token(200, #"{"access_token":"t","expires_in":"soon"}"#) else {
            Issue.record("a grant with an odd expires_in was not read")
            return
        }
        #expect(odd.expiresIn == 3600)
        #expect(throws: FCMFailure.accessToken("token endpoint answered 200 without access_token", broken: false)) {
            try Self.token(200, #"{"access_token":7}"#).get()
        }
        #expect(throws: FCMFailure.accessToken("token endpoint answered 400 (invalid_grant: Invalid JWT Signature.)", broken: true)) {
            try Self.token(400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#).get()
        }
        #expect(throws: FCMFailure.accessToken("token endpoint answered 503", broken: false)) {
            try Self.token(503, "<html>down</html>").get()
        }
    }

    /// An odd field counts as absent; the rest of the answer is still read.
    @Test func anOddFieldHidesNothingElse() {
        let body = #"{"error":{"status":7,"message":"gone","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED","fieldViolations":"x"}]}}"#
        #expect(FCMResult(status: 404, body: Array(body.utf8), retryAfter: " 3 ")
            == .rejected(status: 404, error: .unregistered, message: "gone", tokenProblem: false, retryAfter: 3))
        #expect(FCMResult(status: 200, body: Array(#"{"name":["x"]}"#.utf8), retryAfter: nil) == .accepted(name: ""))
    }

    private static func refusal(_ body: String) -> FCMRefusal? {
        if case let .failure(refusal) = FCMMessageCheck.check(Array(body.utf8)) { refusal } else { nil }
    }

    @Test func messageRules() {
        #expect(FCMMessageCheck.check(Array(#"{"message":{"token":"t1","data":{"a":"b"},"android":{"ttl":"60s","priority":"HIGH"}}}"#.utf8))
            == .success("t1"))
        #expect(Self.refusal("[1]")?.field == "message")
        #expect(Self.refusal(#"{"message":"x"}"#)?.field == "message")
        #expect(Self.refusal(#"{"message":{"token":"t","topic":"news"}}"#)?.field == "message.token")
        #expect(Self.refusal(#"{"message":{"token":""}}"#)?.field == "message.token")
        #expect(Self.refusal(#"{"message":{"token":"t","data":{"b":"x","a":1}}}"#)
            == FCMRefusal("Invalid value at 'message.data[0].value' (TYPE_STRING)", field: "message.data[0].value"))
        #expect(Self.refusal(#"{"message":{"token":"t","data":null}}"#)?.field == "message.data")
        #expect(Self.refusal(#"{"message":{"token":"t","android":{"data":{"a":"1","Google.x":"2"}}}}"#)
            == FCMRefusal("Invalid data payload key: Google.x", field: "message.android.data[0].key"))
        #expect(Self.refusal(#"{"message":{"token":"t","android":{"ttl":"2419201s"}}}"#)?.field == "message.android.ttl")
        #expect(Self.refusal(#"{"message":{"token":"t","android":{"priority":"high"}}}"#)?.field == "message.android.priority")
    }

    /// Notification and data count together, as written compactly: 4096 bytes pass, 4097 do not.
    @Test func payloadLimit() {
        func body(_ size: Int) -> String {
            // {"k":"…"} is 8 bytes around the value; {"title":"x"} is 13.
            #"{"message":{"token":"t","notification":{"title":"x"},"data":{"k":"\#(String(repeating: "é", count: (size - 21) / 2))\#(String(repeating: "v", count: (size - 21) % 2))"}}}"#
        }
        #expect(FCMMessageCheck.check(Array(body(4096).utf8)) == .success("t"))
        #expect(Self.refusal(body(4097))?.message == "Message is too big: 4097 bytes of notification and data, the limit is 4096")
    }
}
