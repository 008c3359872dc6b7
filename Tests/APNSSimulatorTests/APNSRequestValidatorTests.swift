import APNSClient
import Testing
@testable import APNSSimulator

/// One test per APNs request rule, without sockets.
@Suite struct APNSRequestValidatorTests {
    static let token = String(repeating: "ab", count: 32)

    static let background = #"{"aps":{"content-available":1}}"#

    /// A request that passes every rule; each test breaks one. The default topic gets the
    /// push type's suffix; a background push gets a background payload, a Live Activity push
    /// an update's.
    static func valid(
        topic: String? = "com.example", pushType: String? = "alert", priority: String? = "10",
        body: String? = nil
    ) -> APNSRequest {
        let topic = topic == "com.example" ? "com.example" + (pushType.flatMap { APNSRequestValidator.topicSuffixes[$0] } ?? "") : topic
        let body = body ?? (pushType == "background" ? background
            : pushType == "liveactivity" ? #"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"# : #"{"aps":{"alert":"hi"}}"#)
        return APNSRequest(path: "/3/device/\(token)", topic: topic, pushType: pushType, priority: priority, body: Array(body.utf8))
    }

    @Test func validRequestPasses() {
        #expect(APNSRequestValidator.deviceToken(method: "POST", path: "/3/device/\(Self.token)") == .success(Self.token))
        #expect(APNSRequestValidator.headersAndPayload(Self.valid()) == nil)
    }

    @Test func methodOtherThanPostIs405() {
        #expect(APNSRequestValidator.deviceToken(method: "GET", path: "/3/device/\(Self.token)") == .failure(.methodNotAllowed))
        #expect(APNSReason.methodNotAllowed.status == 405)
    }

    @Test func otherPathsAre404BadPath() {
        for path in ["/", "/3/devices/\(Self.token)", "/2/device/\(Self.token)", "/3/device/\(Self.token)/x"] {
            #expect(APNSRequestValidator.deviceToken(method: "POST", path: path) == .failure(.badPath), "\(path)")
        }
        #expect(APNSReason.badPath.status == 404)
    }

    @Test func emptyTokenIsMissingDeviceToken() {
        #expect(APNSRequestValidator.deviceToken(method: "POST", path: "/3/device/") == .failure(.missingDeviceToken))
    }

    @Test func tokenMustBeEvenLengthHexOf64To200() {
        let bad = [
            String(repeating: "a", count: 62), String(repeating: "a", count: 65), String(repeating: "a", count: 202),
            String(repeating: "g", count: 64), String(repeating: "a", count: 63) + " ",
        ]
        for token in bad {
            #expect(APNSRequestValidator.deviceToken(method: "POST", path: "/3/device/\(token)") == .failure(.badDeviceToken), "\(token)")
        }
        for token in [String(repeating: "A0", count: 32), String(repeating: "f", count: 200)] {
            #expect(APNSRequestValidator.deviceToken(method: "POST", path: "/3/device/\(token)") == .success(token))
        }
    }

    @Test func repeatedApnsHeaderIsDuplicateHeaders() {
        var request = Self.valid()
        request.setHeader("apns-topic", "com.other")
        #expect(request.hasDuplicateHeader)
        #expect(APNSRequestValidator.headersAndPayload(request) == .duplicateHeaders)
    }

    @Test func headersAreReadFromBytes() {
        var request = APNSRequest(method: "", path: "")
        for (name, value) in [
            (":method", "POST"), (":path", "/3/device/x"), ("apns-topic", "t"), ("apns-push-type", "voip"),
            ("apns-priority", "5"), ("apns-expiration", "0"), ("apns-id", "i"), ("apns-collapse-id", "c"),
            ("authorization", "bearer x"), ("user-agent", "ignored"),
        ] {
            request.setHeader(name, value)
        }
        #expect(request == APNSRequest(
            method: "POST", path: "/3/device/x", authorization: "bearer x", topic: "t", pushType: "voip",
            priority: "5", expiration: "0", apnsID: "i", collapseID: "c"
        ))
    }

    @Test func missingTopicIsMissingTopic() {
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(topic: nil)) == .missingTopic)
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(topic: "")) == .missingTopic)
    }

    @Test func unknownPushTypeIsInvalidPushType() {
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: "sms")) == .invalidPushType)
        for pushType in APNSRequestValidator.pushTypes where pushType != "background" {
            #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: pushType)) == nil, "\(pushType)")
        }
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: nil)) == nil)
    }

    @Test func priorityMustBe10Or5Or1() {
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(priority: "7")) == .badPriority)
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(priority: "high")) == .badPriority)
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(priority: "1")) == nil)
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(priority: nil)) == nil)
    }

    @Test func backgroundNeedsPriority5() {
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: "background", priority: "5")) == nil)
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: "background", priority: "10")) == .badPriority)
        // An absent priority means 10.
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: "background", priority: nil)) == .badPriority)
    }

    @Test func eachPushTypeNeedsItsTopicSuffix() {
        let cases: [(String?, String, APNSReason?)] = [
            ("alert", "org.example", nil), (nil, "org.example", nil), ("alert", "org.example.voip", .badTopic),
            ("background", "org.example.complication", .badTopic),
            ("voip", "org.example.voip", nil), ("voip", "org.example", .badTopic), ("voip", ".voip", .badTopic),
            ("location", "org.example.location-query", nil), ("location", "org.example.voip", .badTopic),
            ("complication", "org.example.complication", nil), ("fileprovider", "org.example.pushkit.fileprovider", nil),
            ("fileprovider", "org.example.fileprovider", .badTopic), ("liveactivity", "org.example.push-type.liveactivity", nil),
            ("pushtotalk", "org.example.voip-ptt", nil), ("pushtotalk", "org.example.voip", .badTopic),
            ("mdm", "com.apple.mgmt.External.1234", nil),
        ]
        // Not the default "com.example", which `valid` gives the push type's suffix.
        for (pushType, topic, reason) in cases {
            #expect(APNSRequestValidator.headersAndPayload(Self.valid(topic: topic, pushType: pushType, priority: "10")) == reason,
                    "\(pushType ?? "none") to \(topic)")
        }
    }

    @Test func pushToTalkNeedsPriority10AndLiveActivities5Or10() {
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: "pushtotalk", priority: "5")) == .badPriority)
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: "liveactivity", priority: "5")) == nil)
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: "liveactivity", priority: "1")) == .badPriority)
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: "voip", priority: "5")) == nil)
    }

    @Test func backgroundPayloadOnlyWakesTheApp() {
        for body in [#"{"aps":{"content-available":1,"alert":"a"}}"#, #"{"aps":{"content-available":1,"badge":1}}"#,
                     #"{"aps":{"content-available":1,"sound":"s"}}"#, #"{"aps":{}}"#, #"{"aps":{"content-available":0}}"#] {
            #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: "background", priority: "5", body: body)) == .invalidPushType, "\(body)")
        }
        let fine = #"{"aps":{"content-available":1,"category":"c"},"_j_msgid":1}"#
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: "background", priority: "5", body: fine)) == nil)
    }

    @Test func aTokenTakesOnlyItsOwnKindOfPush() {
        let kinds = TokenKinds(prefixes: ["voip": "EE"])
        let voipToken = "ee" + String(repeating: "0", count: 62)
        #expect(kinds.reason(token: voipToken, pushType: "voip") == nil)
        #expect(kinds.reason(token: voipToken.uppercased(), pushType: "voip") == nil)
        #expect(kinds.reason(token: voipToken, pushType: "alert") == .deviceTokenNotForTopic)
        #expect(kinds.reason(token: voipToken, pushType: nil) == .deviceTokenNotForTopic)
        #expect(kinds.reason(token: Self.token, pushType: "voip") == .deviceTokenNotForTopic)
        #expect(kinds.reason(token: Self.token, pushType: "alert") == nil)
        #expect(TokenKinds().reason(token: Self.token, pushType: "voip") == nil, "without a prefix every token takes every push")
    }

    @Test func everyKindOfTokenTakesOnlyItsPushType() {
        let kinds = TokenKinds(prefixes: ["voip": "ee", "location": "e1", "pushtotalk": "e1e1", "fileprovider": "e2", "complication": "e3"])
        func token(_ prefix: String) -> String { prefix + String(repeating: "0", count: 64 - prefix.count) }
        for (prefix, kind) in [("ee", "voip"), ("e1", "location"), ("e1e1", "pushtotalk"), ("e2", "fileprovider"), ("e3", "complication")] {
            #expect(kinds.reason(token: token(prefix), pushType: kind) == nil, "\(kind)")
            for other in ["alert", "background", "voip", "location", "pushtotalk", "fileprovider", "complication"] where other != kind {
                #expect(kinds.reason(token: token(prefix), pushType: other) == .deviceTokenNotForTopic, "\(kind) token, \(other) push")
            }
            #expect(kinds.reason(token: Self.token, pushType: kind) == .deviceTokenNotForTopic, "notification token, \(kind) push")
        }
        #expect(kinds.reason(token: Self.token, pushType: "background") == nil)
    }

    @Test func expirationMustBeNumeric() {
        var request = Self.valid()
        request.expiration = "tomorrow"
        #expect(APNSRequestValidator.headersAndPayload(request) == .badExpirationDate)
        request.expiration = "-1"
        #expect(APNSRequestValidator.headersAndPayload(request) == .badExpirationDate)
        request.expiration = "0"
        #expect(APNSRequestValidator.headersAndPayload(request) == nil)
        request.expiration = "1796030269"
        #expect(APNSRequestValidator.headersAndPayload(request) == nil)
    }

    @Test func apnsIDMustBeUUID() {
        var request = Self.valid()
        request.apnsID = "not-a-uuid"
        #expect(APNSRequestValidator.headersAndPayload(request) == .badMessageId)
        request.apnsID = "123e4567-e89b-12d3-a456-42661417400G"
        #expect(APNSRequestValidator.headersAndPayload(request) == .badMessageId)
        request.apnsID = "123E4567-e89b-12d3-a456-426614174000"
        #expect(APNSRequestValidator.headersAndPayload(request) == nil)
    }

    @Test func collapseIDAtMost64Bytes() {
        var request = Self.valid()
        request.collapseID = String(repeating: "c", count: 64)
        #expect(APNSRequestValidator.headersAndPayload(request) == nil)
        request.collapseID = String(repeating: "c", count: 65)
        #expect(APNSRequestValidator.headersAndPayload(request) == .badCollapseId)
        // Bytes, not characters: 22 three-byte characters are 66 bytes.
        request.collapseID = String(repeating: "€", count: 22)
        #expect(APNSRequestValidator.headersAndPayload(request) == .badCollapseId)
    }

    @Test func emptyBodyIsPayloadEmpty() {
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(body: "")) == .payloadEmpty)
    }

    /// `{"aps":{},"p":"xxx…"}` of exactly `size` bytes.
    static func payload(size: Int) -> String {
        let frame = #"{"aps":{},"p":""}"#
        return #"{"aps":{},"p":""# + String(repeating: "x", count: size - frame.utf8.count) + #""}"#
    }

    @Test func payloadOver4096BytesIsTooLarge() {
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(body: Self.payload(size: 4096))) == nil)
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(body: Self.payload(size: 4097))) == .payloadTooLarge)
        #expect(APNSReason.payloadTooLarge.status == 413)
    }

    @Test func voipPayloadMayReach5120Bytes() {
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: "voip", body: Self.payload(size: 5120))) == nil)
        #expect(APNSRequestValidator.headersAndPayload(Self.valid(pushType: "voip", body: Self.payload(size: 5121))) == .payloadTooLarge)
    }

    @Test func bodyIsRetainedOnlyUpToTheLimitButCountedInFull() {
        var request = Self.valid(body: "")
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 4000)
        for _ in 0..<5 { chunk.withUnsafeBytes { request.appendBody($0) } }
        #expect(request.bodyLength == 20_000)
        #expect(request.body.count == APNSRequest.bodyRetentionLimit)
        #expect(APNSRequestValidator.headersAndPayload(request) == .payloadTooLarge)
    }

    @Test func bodyMustBeJSONObjectWithAPS() {
        for body in [#"{"alert":"hi"}"#, #"{"aps":"hi"}"#, #"["aps"]"#, #"{"aps":{}"#, "hello", #"{"aps":{}} x"#] {
            #expect(APNSRequestValidator.headersAndPayload(Self.valid(body: body)) == .badPayload, "\(body)")
        }
    }

    @Test func errorsCarryReasonBodyAnd410CarriesTimestamp() {
        #expect(String(decoding: APNSResponse(reason: .badDeviceToken).body, as: UTF8.self) == #"{"reason":"BadDeviceToken"}"#)
        #expect(APNSResponse(reason: .badDeviceToken).status == 400)
        let gone = APNSResponse(reason: .unregistered, timestamp: 1_700_000_000_123)
        #expect(String(decoding: gone.body, as: UTF8.self) == #"{"reason":"Unregistered","timestamp":1700000000123}"#)
        #expect(gone.status == 410)
        #expect(APNSResponse.accepted.status == 200)
        #expect(APNSResponse.accepted.body.isEmpty)
    }
}
