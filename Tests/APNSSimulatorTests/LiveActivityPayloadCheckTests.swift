import APNSClient
import Testing
@testable import APNSSimulator

/// The simulator's Live Activity rules (issue 29): topic, priority, required `aps` fields per
/// event, size, and the token's kind.
@Suite struct LiveActivityPayloadCheckTests {
    static let update = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"eta":5}}}"#
    static let start = #"{"aps":{"timestamp":1700000000,"event":"start","content-state":{},"attributes-type":"T","attributes":{}}}"#

    private func reason(_ body: String, topic: String? = "com.example", priority: String? = "5") -> APNSReason? {
        APNSRequestValidator.headersAndPayload(APNSRequestValidatorTests.valid(topic: topic, pushType: "liveactivity", priority: priority, body: body))
    }

    @Test func wellFormedStartsUpdatesAndEndsPass() {
        #expect(reason(Self.update) == nil)
        #expect(reason(Self.start, priority: "10") == nil)
        #expect(reason(#"{"aps":{"timestamp":1,"event":"end","content-state":{},"dismissal-date":2}}"#) == nil)
    }

    @Test func eachEventNeedsItsFields() {
        for body in [#"{"aps":{"event":"update","content-state":{}}}"#, #"{"aps":{"timestamp":1,"content-state":{}}}"#,
                     #"{"aps":{"timestamp":1,"event":"pause","content-state":{}}}"#, #"{"aps":{"timestamp":1,"event":"update"}}"#,
                     #"{"aps":{"timestamp":"1","event":"update","content-state":{}}}"#,
                     #"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes":{}}}"#,
                     #"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes-type":"T"}}"#,
                     #"{"aps":{"timestamp":1,"event":"update","content-state":{},"dismissal-date":2}}"#] {
            #expect(reason(body) == LiveActivityPayloadCheck.invalid, "\(body)")
        }
    }

    @Test func topicPriorityAndSizeFollowAPNs() {
        #expect(reason(Self.update, topic: "com.example") == nil)
        #expect(reason(Self.update, topic: "com.example.voip") == .badTopic)
        #expect(reason(Self.update, topic: "com.exampleapp") == .badTopic)
        #expect(reason(Self.update, priority: "1") == .badPriority)
        let big = #"{"aps":{"timestamp":1,"event":"update","content-state":{"s":"\#(String(repeating: "x", count: 4100))"}}}"#
        #expect(reason(big) == .payloadTooLarge)
    }

    @Test func anActivityKitTokenTakesOnlyLiveActivityPushes() {
        let kinds = TokenKinds(prefixes: ["voip": "ee", "liveactivity": "AA"])
        let activityToken = "aa" + String(repeating: "0", count: 62)
        let alertToken = "bb" + String(repeating: "0", count: 62)
        #expect(kinds.reason(token: activityToken, pushType: "liveactivity") == nil)
        #expect(kinds.reason(token: activityToken, pushType: "alert") == .deviceTokenNotForTopic)
        #expect(kinds.reason(token: alertToken, pushType: "liveactivity") == .deviceTokenNotForTopic)
        #expect(kinds.reason(token: alertToken, pushType: "alert") == nil)
    }
}
