import APNSClient
import Testing
@testable import APNSSimulator

/// The simulator's broadcast side as pure decisions: routes, channel management and the
/// broadcast rules, in Apple's reasons.
@Suite struct ChannelServiceTests {
    static let update = Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#.utf8)

    @Test func routesAreTheChannelAndBroadcastPathsOnly() {
        #expect(ChannelRoute(path: "/1/apps/com.a/channels") == .channels(bundleID: "com.a"))
        #expect(ChannelRoute(path: "/1/apps/com.a/all-channels") == .allChannels(bundleID: "com.a"))
        #expect(ChannelRoute(path: "/4/broadcasts/apps/com.a") == .broadcast(bundleID: "com.a"))
        for path in ["/1/apps//channels", "/1/apps/com.a/other", "/4/broadcasts/apps/", "/3/device/ab", "/1/apps/com.a/channels/x", "/"] {
            #expect(ChannelRoute(path: path) == nil, "\(path)")
        }
    }

    @Test func createReadListDeleteAndTheirErrors() {
        let service = ChannelService(registry: ChannelRegistry(limit: 1))
        let route = ChannelRoute.channels(bundleID: "com.a")
        func body(_ text: String) -> APNSRequest { APNSRequest(method: "POST", path: "/1/apps/com.a/channels", body: Array(text.utf8)) }
        #expect(service.answer(route, body("{")).response.reason == .badRequestPayload)
        #expect(service.answer(route, body(#"{"message-storage-policy":2,"push-type":"LiveActivity"}"#)).response.reason == .badRequestParams)
        #expect(service.answer(route, body(#"{"message-storage-policy":0}"#)).response.reason == .badRequestParams)
        #expect(service.answer(route, body(#"{"message-storage-policy":0,"push-type":"LiveActivity","x":1}"#)).response.reason == .badRequestParams)
        let created = service.answer(route, body(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)).response
        #expect(created.status == 201)
        #expect(created.channelID != nil)
        let id = created.channelID ?? ""
        #expect(service.answer(route, body(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)).response.reason == .cannotCreateChannelConfig,
                "the limit")
        #expect(service.answer(.allChannels(bundleID: "com.a"), APNSRequest(method: "GET", path: "")).response.body
            == Array("{\"channels\":[\"\(id)\"]}".utf8))
        #expect(service.answer(route, APNSRequest(method: "GET", path: "")).response.reason == .missingChannelId)
        #expect(service.answer(route, APNSRequest(method: "GET", path: "", channelID: "%%")).response.reason == .badChannelId)
        #expect(service.answer(route, APNSRequest(method: "GET", path: "", channelID: "AAAA")).response.reason == .channelNotRegistered)
        let read = service.answer(route, APNSRequest(method: "GET", path: "", channelID: id)).response
        #expect(read.status == 200)
        #expect(read.body == Array(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#.utf8))
        #expect(service.answer(route, APNSRequest(method: "PUT", path: "", channelID: id)).response.reason == .methodNotAllowed)
        #expect(service.answer(.channels(bundleID: "com.b"), APNSRequest(method: "GET", path: "", channelID: id)).response.reason
            == .channelNotRegistered, "another bundle's channel")
        #expect(service.answer(route, APNSRequest(method: "DELETE", path: "", channelID: id)).response.status == 204)
        #expect(service.answer(route, APNSRequest(method: "DELETE", path: "", channelID: id)).response.reason == .channelNotRegistered)
        #expect(service.answer(.channels(bundleID: "com.a.voip"), body("{}")).response.reason == .topicDisallowed)
    }

    @Test func broadcastsFollowApplesRulesInOrder() {
        func request(pushType: String? = "liveactivity", priority: String? = "10", expiration: String? = "0", body: [UInt8] = ChannelServiceTests.update) -> APNSRequest {
            APNSRequest(method: "POST", path: "", pushType: pushType, priority: priority, expiration: expiration, body: body)
        }
        let rules = ChannelService.broadcastProblem
        #expect(rules(request(), .noMessageStored) == nil)
        #expect(rules(request(pushType: "LiveActivity"), .noMessageStored) == nil, "Apple's table spells it Liveactivity")
        #expect(rules(request(pushType: nil), .noMessageStored) == .missingPushType)
        #expect(rules(request(pushType: "alert"), .noMessageStored) == .invalidPushType)
        #expect(rules(request(priority: "7"), .noMessageStored) == .badPriority)
        #expect(rules(request(expiration: nil), .noMessageStored) == .badExpirationDate)
        #expect(rules(request(expiration: "1800000000"), .noMessageStored) == .badExpirationDate)
        #expect(rules(request(expiration: "1800000000"), .mostRecentMessageStored) == nil)
        #expect(rules(request(body: []), .noMessageStored) == .payloadEmpty)
        let big = Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{"x":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 5120)
            + Array(#""}}}"#.utf8)
        #expect(rules(request(body: big), .noMessageStored) == .payloadTooLarge)
        for body in [#"{"aps":{"event":"update","content-state":{}}}"#, #"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes-type":"T","attributes":{}}}"#,
                     #"{"aps":{"timestamp":1,"event":"end"}}"#, #"{"aps":{"alert":"x"}}"#] {
            #expect(rules(request(body: Array(body.utf8)), .noMessageStored) == LiveActivityPayloadCheck.invalid, "\(body)")
        }
        #expect(rules(request(body: Array(#"{"aps":{"timestamp":1,"event":"end","content-state":{}}}"#.utf8)), .noMessageStored) == nil)
    }
}
