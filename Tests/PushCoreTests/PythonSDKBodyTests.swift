import RelayCore
import Testing
@testable import PushCore

/// Bodies exactly as the official Python SDK (`jpush`) writes them with `json.dumps`:
/// `", "` and `": "` separators, `\uXXXX` escapes for non-ASCII, flags as 0/1, and what
/// `jpush.ios(…)` fills in: badge "+1" (its default in current versions) and sound "default" unless
/// `sound_disable`.
@Suite struct PythonSDKBodyTests {
    @Test func notificationExample() throws {
        let text = #"{"audience": "all", "platform": "all", "notification": {"alert": "Hello, JPush!", "ios": {"alert": "Hello, IOS JPush!", "sound": "a.caf", "badge": "+1", "extras": {"k1": "v1"}}, "android": {"alert": "Hello, Android msg", "priority": 1, "style": 1, "big_text": "jjjjjjjjjj", "extras": {"k1": "v1"}}}}"#
        let request = try push(text)
        #expect(request.platform == .all)
        #expect(try payloadText(request, storedBadge: 4)
            == #"{"_j_msgid":42,"aps":{"alert":"Hello, IOS JPush!","badge":5,"sound":"a.caf"},"k1":"v1"}"#)
    }

    @Test func silentExampleWithSoundDisabled() throws {
        let text = #"{"audience": "all", "platform": "all", "notification": {"alert": "Hello, JPush!", "ios": {"alert": "Hello, IOS JPush!", "badge": "+1", "extras": {"k1": "v1"}}, "android": {"alert": "Hello, android msg"}}}"#
        #expect(try payloadText(text) == #"{"_j_msgid":42,"aps":{"alert":"Hello, IOS JPush!","badge":1},"k1":"v1"}"#)
    }

    @Test func audienceAndOptions() throws {
        let text = #"{"audience": {"tag": ["tag1", "tag2"], "alias": ["alias1", "alias2"]}, "platform": ["ios", "android"], "notification": {"alert": "Hello world with audience!"}, "options": {"time_to_live": 86400, "sendno": 12345, "apns_production": false}}"#
        let request = try push(text)
        #expect(request.audience == .filter(AudienceFilter(tags: ["tag1", "tag2"], aliases: ["alias1", "alias2"])))
        #expect(request.options == PushOptions(sendno: 12345, timeToLive: 86_400, apnsProduction: false))
    }

    @Test func newerSDKiOSDefaultsAndFlagsAsIntegers() throws {
        let text = #"{"audience": {"registration_id": ["1a0018970a8b1234"]}, "platform": ["ios"], "notification": {"ios": {"alert": {"title": "T", "body": "B"}, "badge": "+1", "sound": "default", "content-available": 1, "mutable-content": 1, "category": "msg", "thread-id": "t1", "extras": {"id": 7}}}, "cid": "8103a4c628a0b98974ec1949-711261d4-5f17-4d2f-a855-5e5a8909b26e"}"#
        let request = try push(text)
        #expect(request.audience.isTargeted)
        #expect(try payloadText(request)
            == #"{"_j_msgid":42,"aps":{"alert":{"body":"B","title":"T"},"badge":1,"category":"msg","content-available":1,"mutable-content":1,"sound":"default","thread-id":"t1"},"id":7}"#)
    }

    @Test func messageExample() throws {
        let text = #"{"audience": "all", "platform": "all", "message": {"msg_content": "Hi,JPush", "content_type": "text", "title": "msg", "extras": {"k1": "v1"}}}"#
        #expect(try payloadText(text)
            == #"{"_j_message":{"content_type":"text","extras":{"k1":"v1"},"msg_content":"Hi,JPush","title":"msg"},"_j_msgid":42,"aps":{"content-available":1}}"#)
    }

    @Test func notificationWithMessageExample() throws {
        // push_example.platfrom_msg(): an alert push that carries the message too.
        let text = #"{"audience": "all", "platform": "all", "notification": {"alert": "Hello, JPush!", "ios": {"alert": "Hello, IOS JPush!", "badge": "+1", "sound": "a.caf", "extras": {"k1": "v1"}}, "android": {"alert": "Hello, android msg"}}, "message": {"msg_content": "content", "extras": {"k2": "v2", "k3": "v3"}}}"#
        let prepared = try APNSPayloadBuilder.prepare(push(text), msgID: sampleMsgID, topic: "t", acceptedAt: 0)
        #expect(prepared.pushType == "alert")
        #expect(String(decoding: prepared.notification(deviceID: 1, storedBadge: 2).payload, as: UTF8.self)
            == #"{"_j_message":{"extras":{"k2":"v2","k3":"v3"},"msg_content":"content"},"_j_msgid":42,"aps":{"alert":"Hello, IOS JPush!","badge":3,"sound":"a.caf"},"k1":"v1"}"#)
    }

    @Test func smsMessageIsKeptAndIgnored() throws {
        let text = #"{"audience": "all", "platform": "all", "notification": {"alert": "a sms message from python jpush api"}, "sms_message": {"content": "a sms message from python jpush api", "delay_time": 0}}"#
        let request = try push(text)
        #expect(request.ignored == ["sms_message"])
        #expect(try payloadText(request) == #"{"_j_msgid":42,"aps":{"alert":"a sms message from python jpush api"}}"#)
    }

    @Test func asciiEscapedChinese() throws {
        // json.dumps(ensure_ascii=True) writes 你好 as \u4f60\u597d; tags too.
        let text = #"{"audience": {"tag": ["\u5317\u4eac"]}, "platform": "all", "notification": {"alert": "\u4f60\u597d"}}"#
        let request = try push(text)
        #expect(request.audience == .filter(AudienceFilter(tags: ["北京"])))
        #expect(try payloadText(request) == #"{"_j_msgid":42,"aps":{"alert":"你好"}}"#)
    }

    @Test func batchByRegistrationID() throws {
        let text = #"{"pushlist": {"8103a4c628a0b98974ec1949-711261d4-5f17-4d2f-a855-5e5a8909b26e": {"platform": "all", "target": "0123456789abcdef0123456789abcdef", "notification": {"alert": "batch"}, "options": {"apns_production": false}}}}"#
        let entries = try BatchPushList.parse(Array(text.utf8), target: .registrationID)
        guard case .accepted(let request, _)? = entries.first?.outcome else { Issue.record("rejected"); return }
        #expect(request.options.apnsProduction == false)
    }
}
