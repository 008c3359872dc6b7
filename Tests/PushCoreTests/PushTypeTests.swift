import RelayCore
import Testing
@testable import PushCore

/// `notification.ios.push_type`, `options.apns_priority` and the `aps` fields beside them
/// (issue 29): the headers each push gets and the 400s for what APNs would refuse.
@Suite struct PushTypeTests {
    private func built(_ body: String) throws -> BuiltNotification {
        try APNSPayloadBuilder.prepare(push(body), msgID: sampleMsgID, topic: "com.example.app", acceptedAt: 0)
            .notification(deviceID: 1, storedBadge: 0)
    }

    @Test func defaultsStayTenForAlertsAndFiveForBackgroundPushes() throws {
        #expect(try built(body()).priority == 10)
        let background = try built(iosBody(#"{"content-available":1}"#))
        #expect(background.pushType == "background")
        #expect(background.priority == 5)
        #expect(background.topic == "com.example.app")
    }

    @Test func priorityIsSentAsAsked() throws {
        for priority in [10, 5, 1] {
            let notification = try built(body(#""options":{"apns_priority":\#(priority)}"#))
            #expect(notification.priority == priority)
            #expect(notification.pushType == "alert")
        }
        #expect(try built(iosBody(#"{"content-available":1}"#, #""options":{"apns_priority":5}"#)).priority == 5)
    }

    @Test func priorityOutsideAPNsValuesIsRefused() {
        #expect(rejection(body(#""options":{"apns_priority":7}"#))
            == JPushError.illegalValue("options.apns_priority must be 10, 5 or 1, got 7"))
        #expect(rejection(body(#""options":{"apns_priority":11}"#))?.code == 1003)
        #expect(rejection(body(#""options":{"apns_priority":"10"}"#))?.code == 1003)
    }

    @Test func backgroundPushesRefusePriorityTen() {
        #expect(rejection(iosBody(#"{"content-available":1}"#, #""options":{"apns_priority":10}"#)) == JPushError.illegalValue(
            "options.apns_priority 10 is not allowed: a push that shows nothing goes to iOS as a background push, which APNs takes at priority 5 only"))
        #expect(rejection(iosBody(#"{"content-available":1,"push_type":"background"}"#, #""options":{"apns_priority":1}"#)) == JPushError.illegalValue(
            "options.apns_priority 1 is not allowed for background pushes: APNs takes them at priority 5 only"))
        // A message alone goes to iOS as a background push too.
        #expect(rejection(body(#""message":{"msg_content":"m"},"options":{"apns_priority":10}"#, notification: nil))?.code == 1003)
    }

    @Test func explicitPushTypesFollowTheirRules() throws {
        #expect(try built(iosBody(#"{"alert":"a","push_type":"alert"}"#)).pushType == "alert")
        #expect(try built(iosBody(#"{"content-available":1,"push_type":"background"}"#)).pushType == "background")
        #expect(rejection(iosBody(#"{"alert":"a","content-available":1,"push_type":"background"}"#))
            == JPushError.illegalValue("notification.ios.push_type background shows nothing: remove the alert, sound and badge"))
        #expect(rejection(iosBody(#"{"content-available":1,"push_type":"alert"}"#))
            == JPushError.illegalValue("notification.ios.push_type alert needs an alert, sound or badge; a push that only wakes the app is a background push"))
        #expect(rejection(iosBody(#"{"push_type":"background","category":"c"}"#))
            == JPushError.illegalValue("notification.ios.push_type background needs content-available (or a message)"))
        #expect(rejection(iosBody(#"{"alert":"a","push_type":"liveactivity"}"#))?.code == 1003)
    }

    @Test func pushTypesWithTokensOfTheirOwnGoToThatKindOfToken() throws {
        #expect(IOSPushType.allCases.compactMap(\.tokenKind) == PushTokenKind.allCases)
        #expect(IOSPushType.alert.tokenKind == nil && IOSPushType.background.tokenKind == nil)
        for kind in PushTokenKind.allCases {
            let request = try push(iosBody(#"{"push_type":"\#(kind.rawValue)","extras":{"k":1}}"#))
            #expect(request.tokenKind == kind)
            let both = #"{"platform":"all","audience":"all","notification":{"android":{"alert":"a"},"ios":{"push_type":"\#(kind.rawValue)"}}}"#
            #expect(rejection(both)?.code == 1003, "\(kind)")
        }
        // Push to Talk: now or never, whatever time_to_live says.
        let talk = try built(iosBody(#"{"push_type":"pushtotalk"}"#, #""options":{"time_to_live":600}"#))
        #expect(talk.expiration == 0)
        #expect(talk.topic == "com.example.app.voip-ptt")
        #expect(try built(iosBody(#"{"push_type":"location"}"#, #""options":{"time_to_live":600}"#)).expiration != 0)
        // Location and File Provider pushes wake an extension: nothing to show.
        for type in ["location", "fileprovider"] {
            #expect(rejection(iosBody(#"{"alert":"a","push_type":"\#(type)"}"#))?.code == 1003)
        }
    }

    @Test func voipPushesGoToTheVoIPTopicWithFiveKilobytes() throws {
        let voip = try built(iosBody(#"{"push_type":"voip","extras":{"caller":"Bob"}}"#))
        #expect(voip.pushType == "voip")
        #expect(voip.topic == "com.example.app.voip")
        #expect(voip.priority == 10)
        #expect(String(decoding: voip.payload, as: UTF8.self) == #"{"_j_msgid":42,"aps":{},"caller":"Bob"}"#)
        #expect(try push(iosBody(#"{"push_type":"voip"}"#)).tokenKind == .voip)
        #expect(try push(body()).tokenKind == nil)
        let overhead = #"{"_j_msgid":9223372036854775807,"aps":{},"x":""}"#.utf8.count
        let fits = iosBody(#"{"push_type":"voip","extras":{"x":"\#(String(repeating: "v", count: 5120 - overhead))"}}"#)
        #expect(rejection(fits) == nil)
        let over = iosBody(#"{"push_type":"voip","extras":{"x":"\#(String(repeating: "v", count: 5121 - overhead))"}}"#)
        #expect(rejection(over)?.code == 1005)
        #expect(rejection(iosBody(#"{"push_type":"voip"}"#, #""options":{"apns_priority":1}"#))?.code == 1003)
    }

    @Test func aVoIPPushGoesToIOSOnly() {
        let both = #"{"platform":"all","audience":"all","notification":{"android":{"alert":"a"},"ios":{"push_type":"voip"}}}"#
        #expect(rejection(both) == JPushError.illegalValue(
            "a VoIP push (notification.ios.push_type voip) goes to iOS devices' VoIP tokens only: send Android its part in a push of its own, or give platform \"ios\""))
        // Nothing for Android in it: iOS alone.
        #expect(rejection(#"{"platform":"all","audience":"all","notification":{"ios":{"push_type":"voip"}}}"#) == nil)
    }

    /// JPush's `notification.voip` alone is a VoIP push with its keys beside `aps`; beside
    /// other content it stays kept and ignored, as before.
    @Test func jpushVoIPAloneIsAVoIPPush() throws {
        let alone = #"{"platform":"all","audience":"all","notification":{"voip":{"caller":"Bob","call_id":7}}}"#
        let request = try push(alone)
        #expect(request.tokenKind == .voip)
        #expect(request.ignored == [])
        #expect(PushBodyKeys.ignoredParts(ofBody: Array(alone.utf8)) == [])
        let voip = try built(alone)
        #expect(voip.topic == "com.example.app.voip")
        #expect(String(decoding: voip.payload, as: UTF8.self) == #"{"_j_msgid":42,"aps":{},"call_id":7,"caller":"Bob"}"#)
        #expect(rejection(#"{"platform":"ios","audience":"all","notification":{"voip":{"aps":{}}}}"#) == JPushError.illegalValue(
            "notification.voip may not set \"aps\"; PushRelay writes that key itself"))
        for beside in [#""alert":"a","#, #""ios":{"alert":"a"},"#, #""android":{"alert":"a"},"#] {
            let text = #"{"platform":"all","audience":"all","notification":{\#(beside)"voip":{"k":"v"}}}"#
            let kept = try push(text)
            #expect(kept.tokenKind == nil, "\(beside)")
            #expect(kept.ignored.contains("notification.voip"), "\(beside)")
            #expect(PushBodyKeys.ignoredParts(ofBody: Array(text.utf8)).contains("notification.voip"), "\(beside)")
        }
        let withMessage = try push(#"{"platform":"ios","audience":"all","notification":{"voip":{"k":"v"}},"message":{"msg_content":"m"}}"#)
        #expect(withMessage.tokenKind == nil)
        let androidOnly = #"{"platform":"android","audience":"all","notification":{"voip":{"k":"v"}}}"#
        #expect(try push(androidOnly).tokenKind == nil, "no iOS: kept and ignored, sends nothing")
    }

    /// Apple, "Sending notification requests to APNs": each push type's topic suffix, payload
    /// limit and priorities.
    @Test func appleRulesPerPushType() {
        let suffixes = Dictionary(uniqueKeysWithValues: IOSPushType.allCases.map { ($0, $0.topicSuffix) })
        #expect(suffixes == [
            .alert: "", .background: "", .voip: ".voip", .location: ".location-query", .complication: ".complication",
            .fileprovider: ".pushkit.fileprovider", .pushtotalk: ".voip-ptt",
        ])
        #expect(IOSPushType.allCases.filter { $0.payloadBytes == 5120 } == [.voip])
        #expect(IOSPushType.allCases.allSatisfy { $0 == .voip || $0.payloadBytes == 4096 })
        #expect(IOSPushType.background.priorities == [5])
        #expect(IOSPushType.pushtotalk.priorities == [10])
        #expect(IOSPushType.allCases.filter { $0.priorities.contains(1) } == [.alert])
    }

    @Test func relevanceTargetAndFilterCriteriaGoIntoAps() throws {
        let text = try payloadText(iosBody(#"{"alert":"a","relevance-score":1,"target-content-id":"w","filter-criteria":"work"}"#))
        #expect(text == #"{"_j_msgid":42,"aps":{"alert":"a","filter-criteria":"work","relevance-score":1.0,"target-content-id":"w"}}"#)
        #expect(rejection(iosBody(#"{"alert":"a","filter-criteria":3}"#))?.code == 1003)
        #expect(rejection(iosBody(#"{"alert":"a","relevance-score":1.5}"#))?.code == 1003)
    }
}
