import RelayCore
import Testing
@testable import PushCore

/// JPush → FCM HTTP v1, field by field (`FCMPayloadBuilder`).
@Suite struct FCMPayloadBuilderTests {
    /// The FCM `message` of an Android push body, as text (keys sorted).
    static func fcm(_ notification: String?, _ fragment: String = "", platform: String = #""android""#) throws -> String {
        let request = try push(body(fragment, platform: platform, notification: notification))
        let prepared = try FCMPayloadBuilder.prepare(request, msgID: sampleMsgID, acceptedAt: 1_800_000_000)
        return String(decoding: prepared.message, as: UTF8.self)
    }

    @Test func shortcutAlertIsTheBodyWithTheDefaults() throws {
        #expect(try Self.fcm(#"{"alert":"Hello"}"#) == #"""
            {"android":{"notification":{"tag":"pushrelay-42"},"ttl":"86400s"},"data":{"_j_msgid":"42"},"notification":{"body":"Hello"}}
            """#)
    }

    @Test func androidAlertOverridesTheShortcutAndTitleGoesBeside() throws {
        #expect(try Self.fcm(#"{"alert":"all","android":{"alert":"droid","title":"Shop"}}"#).contains(#""notification":{"body":"droid","title":"Shop"}"#))
        #expect(try Self.fcm(#"{"alert":"all","android":{"alert":"","title":"Shop"}}"#).contains(#""body":"all""#), "an empty alert falls back")
    }

    @Test func extrasBecomeDataOfStrings() throws {
        let text = try Self.fcm(#"{"android":{"alert":"a","extras":{"n":7,"f":1.5,"b":true,"s":"x","o":{"k":[1,"2"]},"z":null}}}"#)
        #expect(text.contains(#""data":{"_j_msgid":"42","b":"true","f":"1.5","n":"7","o":"{\"k\":[1,\"2\"]}","s":"x"}"#))
    }

    @Test func reservedDataKeysAre1003() {
        for key in ["from", "notification", "message_type", "google.x", "gcm_y", "GoogleZ"] {
            let error = rejection(body(platform: #""android""#, notification: #"{"android":{"alert":"a","extras":{"\#(key)":"v"}}}"#))
            #expect(error?.code == 1003 && error?.message.contains("FCM reserves") == true, "\(key)")
        }
    }

    @Test func channelPrioritySoundCategoryImageAndIntent() throws {
        let text = try Self.fcm(#"""
            {"android":{"alert":"a","channel_id":"orders","priority":2,"sound":"ding","category":"msg",
             "big_pic_path":"https://example.com/p.png","intent":{"url":"intent:#Intent;component=com.example/.Main;end"}}}
            """#)
        #expect(text.contains(#""priority":"HIGH""#))
        #expect(text.contains(#""notification":{"channel_id":"orders","click_action":"intent:#Intent;component=com.example/.Main;end","notification_priority":"PRIORITY_MAX","sound":"ding","tag":"pushrelay-42"}"#))
        #expect(text.contains(#""data":{"_j_msgid":"42","category":"msg"}"#))
        #expect(text.contains(#""image":"https://example.com/p.png""#))
        #expect(try !Self.fcm(#"{"android":{"alert":"a","big_pic_path":"jgmedia-2-14b23451-0001-41ce-89d9-987b465122da"}}"#).contains("image"),
                "a JPush media id is no URL FCM can fetch")
        #expect(try Self.fcm(#"{"android":{"alert":"a","priority":0}}"#).contains(#""priority":"NORMAL""#))
        #expect(FCMPayloadBuilder.notificationPriority(-2) == "PRIORITY_MIN" && FCMPayloadBuilder.notificationPriority(-1) == "PRIORITY_LOW"
                && FCMPayloadBuilder.notificationPriority(0) == "PRIORITY_DEFAULT" && FCMPayloadBuilder.notificationPriority(1) == "PRIORITY_HIGH")
        #expect(rejection(body(platform: #""android""#, notification: #"{"android":{"alert":"a","priority":3}}"#))?.code == 1003)
    }

    @Test func customMessageIsDataOnly() throws {
        #expect(try Self.fcm(nil, #""message":{"msg_content":"sync","title":"t","content_type":"json","extras":{"v":2}}"#) == #"""
            {"android":{"ttl":"86400s"},"data":{"_j_msgid":"42","content_type":"json","msg_content":"sync","title":"t","v":"2"}}
            """#)
    }

    @Test func timeToLiveAndCollapse() throws {
        #expect(try Self.fcm(#"{"alert":"a"}"#, #""options":{"time_to_live":0}"#).contains(#""ttl":"0s""#))
        let collapsed = try Self.fcm(#"{"alert":"a"}"#, #""options":{"apns_collapse_id":"score"}"#)
        #expect(collapsed.contains(#""collapse_key":"score""#) && collapsed.contains(#""tag":"score""#))
        let request = try push(body(#""options":{"override_msg_id":7}"#, platform: #""android""#))
        let overriding = try FCMPayloadBuilder.prepare(request, msgID: sampleMsgID, acceptedAt: 100, collapseID: "pushrelay-7")
        #expect(String(decoding: overriding.message, as: UTF8.self).contains(#""collapse_key":"pushrelay-7""#))
        #expect(overriding.expiration == 100 + 86_400)
        #expect(try !Self.fcm(#"{"alert":"a"}"#).contains("collapse_key"), "FCM keeps four collapse keys a device: none unless asked")
    }

    @Test func fcmChannelOptionsApplyAndOthersAreNamed() throws {
        let options = #""options":{"third_party_channel":{"fcm":{"channel_id":"fcm-ch","distribution":"ospush"},"xiaomi":{"channel_id":"x"}}}"#
        #expect(try Self.fcm(#"{"android":{"alert":"a","channel_id":"c"}}"#, options).contains(#""channel_id":"fcm-ch""#))
        let request = try push(body(options, platform: #""all""#, notification: #"{"android":{"alert":"a"}}"#))
        #expect(request.ignored == ["options.third_party_channel.fcm.distribution", "options.third_party_channel.xiaomi"])
        #expect(request.deliversToAndroid && !request.deliversToIOS)
    }

    @Test func nothingForAndroidIs1002AndTooLargeIs1005() {
        #expect(rejection(body(platform: #""android""#, notification: #"{"ios":{"alert":"i"}}"#))?.code == 1002)
        let long = String(repeating: "x", count: 4100)
        #expect(rejection(body(platform: #""android""#, notification: #"{"alert":"\#(long)"}"#))?.code == 1005)
        let ios = try? push(body(platform: #""all""#, notification: #"{"ios":{"alert":"i"}}"#))
        #expect(ios?.deliversToIOS == true && ios?.deliversToAndroid == false, "nothing for Android is fine when iOS gets something")
    }
}
