import Foundation
import Testing
@testable import APNSClient

/// Broadcast channels: the requests as laid out for the wire and their answers as read,
/// without a server (Apple, "Sending channel management requests to APNs").
@Suite struct ChannelRequestTests {
    static let channelID = "dHN0LXNyY2gtY2hubA=="
    static let requestID = UUID(uuidString: "2288cf3f-70d8-46a6-97d7-dd5d00867127")!

    static func fields(_ message: some HTTP2Message) -> [(String, String)] {
        var block = RequestHeaderBlock()
        block.build(message, authority: Array("h".utf8), authorization: Array("bearer t".utf8))
        return block.pairs.map { ($0.name, $0.value) }
    }

    @Test func eachOperationHasItsMethodPathHeadersAndBody() {
        let cases: [(APNSChannelRequest.Operation, String, String, String?, String)] = [
            (.create(.mostRecentMessageStored), "POST", "/1/apps/com.example.app/channels", nil,
             #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#),
            (.create(.noMessageStored), "POST", "/1/apps/com.example.app/channels", nil,
             #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#),
            (.read(channelID: Self.channelID), "GET", "/1/apps/com.example.app/channels", Self.channelID, ""),
            (.delete(channelID: Self.channelID), "DELETE", "/1/apps/com.example.app/channels", Self.channelID, ""),
            (.list, "GET", "/1/apps/com.example.app/all-channels", nil, ""),
        ]
        for (operation, method, path, channel, body) in cases {
            let request = APNSChannelRequest(bundleID: "com.example.app", operation: operation, requestID: Self.requestID)
            #expect(request.validate() == nil)
            var expected = [(":method", method), (":scheme", "https"), (":authority", "h"), (":path", path),
                            ("authorization", "bearer t"), ("apns-request-id", Self.requestID.uuidString.lowercased())]
            if let channel { expected.append(("apns-channel-id", channel)) }
            expected.append(("content-length", String(body.utf8.count)))
            let fields = Self.fields(request)
            #expect(fields.map(\.0) == expected.map(\.0), "\(operation)")
            #expect(fields.map(\.1) == expected.map(\.1), "\(operation)")
            #expect(String(decoding: request.body, as: UTF8.self) == body)
        }
    }

    @Test func aBroadcastCarriesTheChannelPushTypePriorityAndExpirationButNoTopic() {
        let broadcast = APNSBroadcast(bundleID: "com.example.app", channelID: Self.channelID, priority: .immediate,
                                      requestID: Self.requestID, payload: Array(#"{"aps":{}}"#.utf8))
        let fields = Dictionary(uniqueKeysWithValues: Self.fields(broadcast))
        #expect(fields[":path"] == "/4/broadcasts/apps/com.example.app")
        #expect(fields[":method"] == "POST")
        #expect(fields["apns-channel-id"] == Self.channelID)
        #expect(fields["apns-push-type"] == "liveactivity")
        #expect(fields["apns-priority"] == "10")
        #expect(fields["apns-expiration"] == "0", "nil expiration: delivered once, stored nowhere")
        #expect(fields["apns-request-id"] == Self.requestID.uuidString.lowercased())
        #expect(fields["apns-topic"] == nil)
        var stored = broadcast
        stored.expiration = 1_800_000_000
        #expect(Dictionary(uniqueKeysWithValues: Self.fields(stored))["apns-expiration"] == "1800000000")
    }

    @Test func badRequestsAreRefusedBeforeSending() {
        #expect(APNSChannelRequest(bundleID: "", operation: .list).validate() == .missingTopic)
        #expect(APNSChannelRequest(bundleID: "a/b", operation: .list).validate() != nil)
        #expect(APNSChannelRequest(bundleID: "a", operation: .read(channelID: "")).validate() != nil)
        #expect(APNSChannelRequest(bundleID: "a", operation: .delete(channelID: "not base64!")).validate() != nil)
        let payload = Array(repeating: UInt8(ascii: " "), count: 5121)
        #expect(APNSBroadcast(bundleID: "a", channelID: Self.channelID, payload: payload).validate()
            == .payloadTooLarge(size: 5121, limit: 5120))
        #expect(APNSBroadcast(bundleID: "a", channelID: Self.channelID, payload: Array(payload.prefix(5120))).validate() == nil)
        #expect(APNSBroadcast(bundleID: "a", channelID: Self.channelID, payload: []).validate() == .payloadEmpty)
    }

    @Test func answersReadAsTheirResults() {
        let configuration = Array(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#.utf8)
        #expect(APNSChannelResult(operation: .create(.noMessageStored), status: 201, channelID: Self.channelID, body: [])
            == .created(channelID: Self.channelID))
        #expect(APNSChannelResult(operation: .read(channelID: Self.channelID), status: 200, channelID: nil, body: configuration)
            == .channel(APNSChannelConfiguration(storagePolicy: .mostRecentMessageStored)))
        #expect(APNSChannelResult(operation: .delete(channelID: Self.channelID), status: 204, channelID: nil, body: []) == .deleted)
        #expect(APNSChannelResult(operation: .list, status: 200, channelID: nil, body: Array(#"{"channels":["a","b"]}"#.utf8))
            == .channels(["a", "b"]))
        #expect(APNSChannelResult(operation: .read(channelID: "x"), status: 400, channelID: nil,
                                  body: Array(#"{"reason":"ChannelNotRegistered"}"#.utf8)) == .rejected(status: 400, reason: .channelNotRegistered))
        #expect(APNSChannelResult(operation: .create(.noMessageStored), status: 400, channelID: nil,
                                  body: Array(#"{"reason":"FeatureNotEnabled"}"#.utf8)) == .rejected(status: 400, reason: .featureNotEnabled))
        #expect(APNSChannelResult(operation: .create(.noMessageStored), status: 403, channelID: nil,
                                  body: Array(#"{"reason":"TopicMismatch"}"#.utf8)) == .rejected(status: 403, reason: .topicMismatch))
    }

    @Test func successAnswersThatDoNotFitReadAsRejections() {
        #expect(APNSChannelResult(operation: .create(.noMessageStored), status: 201, channelID: nil, body: [])
            == .rejected(status: 201, reason: .unknown("no apns-channel-id in the answer")))
        #expect(APNSChannelResult(operation: .create(.noMessageStored), status: 200, channelID: Self.channelID, body: [])
            == .rejected(status: 200, reason: .unknown("unexpected 200 answer")))
        guard case .rejected(200, _) = APNSChannelResult(operation: .list, status: 200, channelID: nil, body: Array("[]".utf8)) else {
            Issue.record("an unreadable list is a rejection")
            return
        }
    }

    @Test func theBroadcastReasonsAreKnownWithTheirStatuses() {
        for (name, status) in [("FeatureNotEnabled", 400), ("MissingChannelId", 400), ("BadChannelId", 400), ("ChannelNotRegistered", 400),
                               ("BadRequestParams", 400), ("BadRequestPayload", 400), ("MissingPushType", 400),
                               ("CannotCreateChannelConfig", 400), ("TopicMismatch", 403)] {
            let reason = APNSReason(name)
            #expect(reason.description == name)
            #expect(reason != .unknown(name))
            #expect(reason.status == status)
        }
    }
}
