import RelayCore
import Testing
@testable import PushCore

/// The Live Activity bodies (`POST /v3/live-activities`, `/v3/live-activities/{activity_id}`),
/// the push they store and the `aps` each sends (issue 29).
@Suite struct LiveActivityPushTests {
    private let start = #"""
        {"event":"start","activity_id":"order-42","audience":{"alias":["u1"]},"attributes_type":"DeliveryAttributes",
         "attributes":{"order":42},"content_state":{"eta":12},"alert":{"title":"On its way","body":"12 min"},"relevance_score":0.5}
        """#

    private func aps(_ push: LiveActivityPush, acceptedAt: Int = 1_700_000_000) throws -> [String: JSONValue] {
        let built = try APNSPayloadBuilder.prepare(push.request, msgID: sampleMsgID, topic: "com.example.app", acceptedAt: acceptedAt)
            .notification(deviceID: 1, storedBadge: 0)
        guard case .object(let top) = try JSONValue.parse(built.payload), case .object(let aps)? = top["aps"] else {
            Issue.record("no aps")
            return [:]
        }
        #expect(top.count == 1)
        return aps
    }

    private func rejection(_ make: () throws(JPushError) -> LiveActivityPush) -> JPushError? {
        do throws(JPushError) {
            _ = try make()
            return nil
        } catch {
            return error
        }
    }

    @Test func aStartCarriesTheAttributesAndAsksForAnUpdateToken() throws {
        let push = try LiveActivityPush.start(Array(start.utf8))
        let built = try APNSPayloadBuilder.prepare(push.request, msgID: sampleMsgID, topic: "com.example.app", acceptedAt: 1_700_000_000)
            .notification(deviceID: 1, storedBadge: 0)
        #expect(built.pushType == "liveactivity")
        #expect(built.topic == "com.example.app.push-type.liveactivity")
        #expect(built.priority == 10)
        let fields = try aps(push)
        #expect(fields["event"] == .string("start"))
        #expect(fields["timestamp"] == .int(1_700_000_000))
        #expect(fields["attributes-type"] == .string("DeliveryAttributes"))
        #expect(fields["attributes"] == .object(["order": .int(42)]))
        #expect(fields["content-state"] == .object(["eta": .int(12)]))
        #expect(fields["input-push-token"] == .int(1))
        #expect(fields["alert"] == .object(["title": .string("On its way"), "body": .string("12 min")]))
        #expect(fields["relevance-score"] == .double(0.5))
        #expect(push.request.audience == Audience.filter(AudienceFilter(aliases: ["u1"])))
        #expect(push.request.deliversToIOS && !push.request.deliversToAndroid)
    }

    @Test func theStoredBodyParsesBackToTheSamePush() throws {
        let push = try LiveActivityPush.start(Array(start.utf8))
        #expect(try PushRequest.parse(push.body) == push.request)
        let end = try LiveActivityPush.change(Array(#"{"event":"end","content_state":{"eta":0},"dismissal_date":1700000600}"#.utf8), activityID: "order-42")
        #expect(try PushRequest.parse(end.body) == end.request)
        #expect(end.request.audience == .all)
    }

    @Test func updatesAndEndsDefaultToPriorityFiveAndCarryTheirDates() throws {
        let update = try LiveActivityPush.change(Array(#"{"event":"update","content_state":{"eta":5},"stale_date":1700000900}"#.utf8), activityID: "order-42")
        let built = try APNSPayloadBuilder.prepare(update.request, msgID: sampleMsgID, topic: "b", acceptedAt: 1_700_000_000).notification(deviceID: 1, storedBadge: 0)
        #expect(built.priority == 5)
        let fields = try aps(update)
        #expect(fields["event"] == .string("update"))
        #expect(fields["stale-date"] == .int(1_700_000_900))
        #expect(fields["attributes-type"] == nil && fields["input-push-token"] == nil)
        let end = try LiveActivityPush.change(Array(#"{"event":"end","content-state":{"eta":0},"dismissal-date":1700000600,"options":{"apns_priority":10}}"#.utf8), activityID: "order-42")
        #expect(try aps(end)["dismissal-date"] == .int(1_700_000_600))
        #expect(try APNSPayloadBuilder.prepare(end.request, msgID: sampleMsgID, topic: "b", acceptedAt: 0).priority == 10)
    }

    @Test func badInputIsRefusedWithJPushErrors() {
        let change = { (body: String) in { () throws(JPushError) -> LiveActivityPush in try LiveActivityPush.change(Array(body.utf8), activityID: "a1") } }
        #expect(rejection(change(#"{"event":"pause","content_state":{}}"#))
            == JPushError.illegalValue("event must be start, update or end, got \"pause\""))
        #expect(rejection(change(#"{"content_state":{}}"#))?.code == 1002)
        #expect(rejection(change(#"{"event":"update"}"#))
            == JPushError.missingParameter("content_state is required: the activity's ContentState as a JSON object"))
        #expect(rejection(change(#"{"event":"update","content_state":{},"dismissal_date":5}"#))?.code == 1003)
        #expect(rejection(change(#"{"event":"update","content_state":{},"attributes":{}}"#))?.code == 1003)
        #expect(rejection(change(#"{"event":"start","content_state":{}}"#))?.code == 1003)
        #expect(rejection(change(#"{"event":"update","content_state":{},"relevance_score":2}"#))?.code == 1003)
        #expect(rejection(change(#"{"event":"update","content_state":{},"options":{"apns_priority":1}}"#))?.code == 1003)
        #expect(rejection(change(#"{"event":"update","content_state":{},"content-state":{}}"#))?.code == 1003)
        #expect(rejection(change(#"{"event":"update","content_state":{},"colour":1}"#))?.code == 1009)
        #expect(rejection(change(#"{"event":"update","content_state":{"text":"\#(String(repeating: "x", count: 4100))"}}"#))?.code == 1005)
        #expect(rejection { () throws(JPushError) in try LiveActivityPush.change(Array(#"{"event":"update","content_state":{}}"#.utf8), activityID: "channels") }?.code == 1003)
        #expect(rejection { () throws(JPushError) in try LiveActivityPush.change(Array(#"{"event":"update","content_state":{}}"#.utf8), activityID: "a/b") }?.code == 1003)
        let startBody = { (body: String) in { () throws(JPushError) -> LiveActivityPush in try LiveActivityPush.start(Array(body.utf8)) } }
        #expect(rejection(startBody(#"{"event":"start","activity_id":"a","audience":"all","attributes":{},"content_state":{}}"#))?.code == 1002)
        #expect(rejection(startBody(#"{"event":"start","activity_id":"a","attributes_type":"T","attributes":{},"content_state":{}}"#))?.code == 1002)
        #expect(rejection(startBody(#"{"event":"update","activity_id":"a","audience":"all","content_state":{}}"#))?.code == 1003)
        #expect(rejection(startBody(#"{"event":"start","activity_id":"a","audience":"all","platform":"android","attributes_type":"T","attributes":{},"content_state":{}}"#))?.code == 1003)
    }

    @Test func aPushBodyMayCarryALiveActivityInPushRelaysShapeButNotBesideANotification() throws {
        let body = #"{"platform":"ios","audience":"all","live_activity":{"event":"update","activity_id":"a1","content_state":{"x":1}}}"#
        #expect(try PushRequest.parse(Array(body.utf8)).liveActivity?.activityID == "a1")
        let both = #"{"platform":"ios","audience":"all","notification":{"alert":"hi"},"live_activity":{"event":"update","activity_id":"a1","content_state":{}}}"#
        #expect(throws: JPushError.self) { try PushRequest.parse(Array(both.utf8)) }
        // Another shape of `live_activity` stays an ignored part, as before.
        let other = #"{"platform":"ios","audience":"all","notification":{"alert":"hi"},"live_activity":{"ios":{}}}"#
        #expect(try PushRequest.parse(Array(other.utf8)).ignored == ["live_activity"])
    }

    @Test func thePayloadBytesAreForChannelSendsToo() throws {
        let content = LiveActivityContent(event: .update, activityID: "a", contentState: ["s": .int(1)])
        #expect(String(decoding: try LiveActivityPayloadBuilder.payload(content, timestamp: 17), as: UTF8.self)
            == #"{"aps":{"content-state":{"s":1},"event":"update","timestamp":17}}"#)
        #expect(try LiveActivityPayloadBuilder.priority(.update, asked: nil) == 5)
        #expect(try LiveActivityPayloadBuilder.priority(.start, asked: nil) == 10)
    }
}

/// `LiveActivityPacer`: an activity's updates faster than the interval are coalesced.
@Suite struct LiveActivityPacerTests {
    @Test func updatesWithinTheIntervalWaitAndTheNewestReplacesTheWaitingOne() {
        var pacer = LiveActivityPacer()
        #expect(pacer.event(.update, message: 1, now: 1_000, interval: 500) == .init(sendAt: 1_000))
        #expect(pacer.event(.update, message: 2, now: 1_100, interval: 500) == .init(sendAt: 1_500))
        #expect(pacer.waiting == 2)
        #expect(pacer.event(.update, message: 3, now: 1_200, interval: 500) == .init(sendAt: 1_500, withdraw: 2))
        #expect(pacer.waiting == 3)
        // Once its turn came, the next waits for a turn after it.
        #expect(pacer.event(.update, message: 4, now: 1_600, interval: 500) == .init(sendAt: 2_000))
        #expect(pacer.event(.update, message: 5, now: 3_000, interval: 500) == .init(sendAt: 3_000))
        #expect(pacer.waiting == nil)
    }

    @Test func anEndGoesAtOnceAndWithdrawsTheWaitingUpdate() {
        var pacer = LiveActivityPacer()
        _ = pacer.event(.update, message: 1, now: 1_000, interval: 500)
        _ = pacer.event(.update, message: 2, now: 1_100, interval: 500)
        #expect(pacer.event(.end, message: 3, now: 1_200, interval: 500) == .init(sendAt: 1_200, withdraw: 2))
        #expect(pacer.waiting == nil)
    }

    @Test func intervalZeroSendsEverythingAtOnce() {
        var pacer = LiveActivityPacer()
        for message in Int64(1)...5 {
            #expect(pacer.event(.update, message: message, now: 1_000 + message, interval: 0) == .init(sendAt: 1_000 + message))
        }
    }
}
