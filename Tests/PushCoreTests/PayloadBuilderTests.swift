import Foundation
import RelayCore
import Testing
@testable import PushCore

@Suite struct PayloadShapeTests {
    @Test func shortcutAlert() throws {
        #expect(try payloadText(body()) == #"{"_j_msgid":42,"aps":{"alert":"hi"}}"#)
    }

    @Test func iosAlertOverridesTheShortcut() throws {
        #expect(try payloadText(body(notification: #"{"alert":"all","ios":{"alert":"ios"}}"#)) == #"{"_j_msgid":42,"aps":{"alert":"ios"}}"#)
        // The shortcut still applies when the ios block has no alert.
        #expect(try payloadText(body(notification: #"{"alert":"all","ios":{"sound":"s"}}"#))
            == #"{"_j_msgid":42,"aps":{"alert":"all","sound":"s"}}"#)
        // An empty ios alert shows none.
        #expect(try payloadText(body(notification: #"{"alert":"all","ios":{"alert":"","badge":1}}"#))
            == #"{"_j_msgid":42,"aps":{"badge":1}}"#)
    }

    @Test func everyApsField() throws {
        let text = try payloadText(iosBody(#"""
            {"alert":{"title":"T","body":"B","loc-args":["a"]},"sound":"ping.caf","badge":5,"content-available":1,
             "mutable-content":true,"category":"c","thread-id":"t","interruption-level":"passive","relevance-score":0.5,
             "target-content-id":"w","extras":{"z":1,"a":{"y":2,"b":null}}}
            """#))
        #expect(text == #"{"_j_msgid":42,"a":{"b":null,"y":2},"aps":{"alert":{"body":"B","loc-args":["a"],"title":"T"},"badge":5,"category":"c","content-available":1,"interruption-level":"passive","mutable-content":1,"relevance-score":0.5,"sound":"ping.caf","target-content-id":"w","thread-id":"t"},"z":1}"#)
    }

    /// Issue 22.12: ids beyond 2^53 (and beyond Int64) and every other number in extras
    /// reach the payload exactly as the client wrote them.
    @Test func extrasNumbersKeepTheirText() throws {
        let numbers = #"{"big":123456789012345678901234567890,"id":9007199254740993,"max":18446744073709551615,"f":1.50,"e":1E+2,"z":-0}"#
        let text = try payloadText(iosBody(#"{"alert":"a","extras":\#(numbers)}"#, #""message":{"msg_content":"m","extras":\#(numbers)}"#))
        let written = #""big":123456789012345678901234567890,"e":1E+2,"f":1.50,"id":9007199254740993,"max":18446744073709551615,"z":-0"#
        #expect(text == #"{"_j_message":{"extras":{\#(written)},"msg_content":"m"},"_j_msgid":42,"aps":{"alert":"a"},\#(written)}"#)
    }

    @Test func criticalSound() throws {
        #expect(try payloadText(iosBody(#"{"alert":"a","sound":{"critical":1,"name":"alarm.caf","volume":0.5}}"#))
            == #"{"_j_msgid":42,"aps":{"alert":"a","sound":{"critical":1,"name":"alarm.caf","volume":0.5}}}"#)
        #expect(try payloadText(iosBody(#"{"alert":"a","sound":{"critical":0,"name":"n","volume":1}}"#))
            == #"{"_j_msgid":42,"aps":{"alert":"a","sound":{"name":"n","volume":1.0}}}"#)
    }

    @Test func alertPushHeaders() throws {
        let prepared = try APNSPayloadBuilder.prepare(push(body()), msgID: sampleMsgID, topic: "com.example.app", acceptedAt: 1_800_000_000)
        let built = prepared.notification(deviceID: 7, storedBadge: 0)
        #expect(built.pushType == "alert")
        #expect(built.priority == 10)
        #expect(built.topic == "com.example.app")
        #expect(built.expiration == 1_800_086_400)
        #expect(built.collapseID == "pushrelay-\(sampleMsgID)", "the first send carries the collapse id too")
        #expect(built.newBadge == nil)
        #expect(built.apnsID == APNSNotificationID.make(msgID: sampleMsgID, deviceID: 7))
    }

    @Test func messageOnlyIsABackgroundPush() throws {
        let request = try push(body(#""message":{"msg_content":"m","title":"t","content_type":"json","extras":{"k":"v"}}"#, notification: nil))
        let built = try APNSPayloadBuilder.prepare(request, msgID: sampleMsgID, topic: "com.example.app", acceptedAt: 1_800_000_000)
            .notification(deviceID: 1, storedBadge: 3)
        #expect(built.pushType == "background")
        #expect(built.priority == 5)
        #expect(built.newBadge == nil)
        #expect(String(decoding: built.payload, as: UTF8.self)
            == #"{"_j_message":{"content_type":"json","extras":{"k":"v"},"msg_content":"m","title":"t"},"_j_msgid":42,"aps":{"content-available":1}}"#)
    }

    @Test func silentNotificationIsABackgroundPush() throws {
        let request = try push(iosBody(#"{"content-available":true,"extras":{"sync":"inbox"}}"#))
        let built = try APNSPayloadBuilder.prepare(request, msgID: sampleMsgID, topic: "t", acceptedAt: 0)
            .notification(deviceID: 1, storedBadge: 0)
        #expect(built.pushType == "background")
        #expect(built.priority == 5)
        #expect(String(decoding: built.payload, as: UTF8.self) == #"{"_j_msgid":42,"aps":{"content-available":1},"sync":"inbox"}"#)
    }

    @Test func notificationWithoutAnythingToShowPlusMessageIsBackground() throws {
        let text = try payloadText(iosBody(#"{"extras":{"k":1}}"#, #""message":{"msg_content":"m"}"#))
        #expect(text == #"{"_j_message":{"msg_content":"m"},"_j_msgid":42,"aps":{"content-available":1},"k":1}"#)
    }

    @Test func notificationAndMessageTogetherIsAnAlertCarryingBoth() throws {
        let request = try push(body(#""message":{"msg_content":"m"}"#))
        let built = try APNSPayloadBuilder.prepare(request, msgID: sampleMsgID, topic: "t", acceptedAt: 0)
            .notification(deviceID: 1, storedBadge: 0)
        #expect(built.pushType == "alert")
        #expect(built.priority == 10)
        #expect(String(decoding: built.payload, as: UTF8.self) == #"{"_j_message":{"msg_content":"m"},"_j_msgid":42,"aps":{"alert":"hi"}}"#)
    }

    @Test func badgeOnlyAndSoundOnlyAreAlerts() throws {
        let badgeOnly = try APNSPayloadBuilder.prepare(push(iosBody(#"{"badge":0}"#)), msgID: sampleMsgID, topic: "t", acceptedAt: 0)
        #expect(badgeOnly.pushType == "alert")
        let soundOnly = try APNSPayloadBuilder.prepare(push(iosBody(#"{"sound":"s"}"#)), msgID: sampleMsgID, topic: "t", acceptedAt: 0)
        #expect(soundOnly.pushType == "alert")
    }

    @Test func payloadIsValidJSONWithUnicodeAndEscapes() throws {
        let request = try push(iosBody(#"{"alert":"你好 \"q\" \\ \n\t\u0001 😀 \u2028 /","extras":{"ключ":"é"}}"#))
        let prepared = try APNSPayloadBuilder.prepare(request, msgID: sampleMsgID, topic: "t", acceptedAt: 0)
        let payload = prepared.notification(deviceID: 1, storedBadge: 0).payload
        let text = String(decoding: payload, as: UTF8.self)
        // Raw UTF-8 for non-ASCII, escapes for quotes, backslashes and control characters.
        #expect(text == "{\"_j_msgid\":42,\"aps\":{\"alert\":\"你好 \\\"q\\\" \\\\ \\n\\t\\u0001 😀 \u{2028} /\"},\"ключ\":\"é\"}")
        let object = try foundationJSON(payload)
        #expect((object["aps"] as? NSDictionary)?["alert"] as? String == "你好 \"q\" \\ \n\t\u{1} 😀 \u{2028} /")
        #expect(object["ключ"] as? String == "é")
    }

    @Test func outputIsDeterministicWhateverTheInputOrder() throws {
        let first = try payloadText(iosBody(#"{"alert":"a","badge":"+1","extras":{"b":1,"a":{"y":1,"x":[{"q":1,"p":2}]},"_":0}}"#))
        let second = try payloadText(iosBody(#"{"extras":{"_":0,"a":{"x":[{"p":2,"q":1}],"y":1},"b":1},"badge":"+1","alert":"a"}"#))
        #expect(first == second)
        #expect(first == #"{"_":0,"_j_msgid":42,"a":{"x":[{"p":2,"q":1}],"y":1},"aps":{"alert":"a","badge":1},"b":1}"#)
    }

    @Test func keysAreSortedByUTF8Bytes() {
        #expect(CanonicalJSON.sorted(["b", "B", "aps", "_j_msgid", "é", "z", "中"]) == ["B", "_j_msgid", "aps", "b", "z", "é", "中"])
        #expect(String(decoding: CanonicalJSON.bytes(.object(["b": .double(1e-7), "a": .double(-0.0), "c": .bool(false)])), as: UTF8.self)
            == #"{"a":-0.0,"b":1e-07,"c":false}"#)
    }
}

@Suite struct BadgeArithmeticTests {
    @Test func applied() {
        #expect(BadgeChange.set(4).applied(to: 9) == 4)
        #expect(BadgeChange.add(1).applied(to: 0) == 1)
        #expect(BadgeChange.add(1).applied(to: 41) == 42)
        #expect(BadgeChange.add(-1).applied(to: 1) == 0)
        #expect(BadgeChange.add(-1).applied(to: 0) == 0)
        #expect(BadgeChange.add(-5).applied(to: 3) == 0)
        #expect(BadgeChange.add(0).applied(to: 3) == 3)
        #expect(BadgeChange.add(1).applied(to: PushLimits.maxBadge) == PushLimits.maxBadge)
        #expect(BadgeChange.add(PushLimits.maxBadge).applied(to: PushLimits.maxBadge) == PushLimits.maxBadge)
        #expect(BadgeChange.add(-PushLimits.maxBadge).applied(to: 0) == 0)
    }

    func built(_ badge: String, stored: Int) throws -> BuiltNotification {
        let request = try push(iosBody("{\"alert\":\"a\",\"badge\":\(badge)}"))
        return try APNSPayloadBuilder.prepare(request, msgID: sampleMsgID, topic: "t", acceptedAt: 0)
            .notification(deviceID: 1, storedBadge: stored)
    }

    @Test func relativeBadgesUseTheStoredValuePerDevice() throws {
        let plusOne = [0, 1, 9, 99].map { stored in (try? built(#""+1""#, stored: stored)) }
        #expect(plusOne.map { $0?.newBadge } == [1, 2, 10, 100])
        #expect(plusOne.map { $0.map { String(decoding: $0.payload, as: UTF8.self) } } == [1, 2, 10, 100].map {
            #"{"_j_msgid":42,"aps":{"alert":"a","badge":\#($0)}}"#
        })
        let minusTwo = try built(#""-2""#, stored: 1)
        #expect(minusTwo.newBadge == 0)
        #expect(String(decoding: minusTwo.payload, as: UTF8.self) == #"{"_j_msgid":42,"aps":{"alert":"a","badge":0}}"#)
        let clamped = try built(#""+1""#, stored: PushLimits.maxBadge)
        #expect(clamped.newBadge == PushLimits.maxBadge)
    }

    @Test func anIntegerSetsTheBadgeAndIsStoredBack() throws {
        let set = try built("3", stored: 17)
        #expect(set.newBadge == 3)
        #expect(String(decoding: set.payload, as: UTF8.self) == #"{"_j_msgid":42,"aps":{"alert":"a","badge":3}}"#)
    }
}

@Suite struct ExpirationAndCollapseTests {
    func prepared(_ options: String, msgID: MessageID = sampleMsgID) throws -> PreparedNotification {
        try APNSPayloadBuilder.prepare(push(body("\"options\":\(options)")), msgID: msgID, topic: "t", acceptedAt: 1_800_000_000)
    }

    @Test func expirationFromTimeToLive() throws {
        #expect(try prepared("{}").expiration == 1_800_086_400)
        #expect(try prepared(#"{"time_to_live":60}"#).expiration == 1_800_000_060)
        #expect(try prepared(#"{"time_to_live":864000}"#).expiration == 1_800_864_000)
        // 0: now or never.
        #expect(try prepared(#"{"time_to_live":0}"#).expiration == 0)
    }

    /// One collapse id per message, on every notification of it (first sends, retries and
    /// re-sends alike): the stored one, else the push's own, else pushrelay-<msg_id>.
    @Test func collapseIDChoice() throws {
        #expect(try prepared("{}").notification(deviceID: 1, storedBadge: 0).collapseID == "pushrelay-42")
        #expect(try prepared(#"{"apns_collapse_id":"score"}"#).notification(deviceID: 1, storedBadge: 0).collapseID == "score")
        let stored = try APNSPayloadBuilder.prepare(push(body("\"options\":{\"override_msg_id\":\"7\"}")), msgID: sampleMsgID,
                                                    topic: "t", acceptedAt: 0, collapseID: "of-the-overridden-one")
        #expect(stored.notification(deviceID: 1, storedBadge: 0).collapseID == "of-the-overridden-one")
    }

    @Test func collapseIDRule() throws {
        let msgID = MessageID(rawValue: 42)!
        #expect(CollapseID.of(PushOptions(), msgID: msgID, overridden: nil) == "pushrelay-42")
        #expect(CollapseID.of(PushOptions(apnsCollapseID: "score"), msgID: msgID, overridden: nil) == "score")
        // An override replaces the overridden message on the phone, whatever else is given.
        #expect(CollapseID.of(PushOptions(apnsCollapseID: "score"), msgID: msgID, overridden: "old") == "old")
        #expect(CollapseID.of(PushOptions(), msgID: msgID, overridden: "pushrelay-7") == "pushrelay-7")
        let longest = CollapseID.derived(from: MessageID(rawValue: .max)!)
        #expect(longest == "pushrelay-9223372036854775807")
        #expect(longest.utf8.count <= PushLimits.collapseIDBytes)
    }

    @Test func everyNotificationOfAMessageIsTheSame() throws {
        let prepared = try prepared("{}")
        let first = prepared.notification(deviceID: 9, storedBadge: 0)
        let again = prepared.notification(deviceID: 9, storedBadge: 0)
        #expect(first.apnsID == again.apnsID)
        #expect(first.payload == again.payload)
        #expect(prepared.notification(deviceID: 10, storedBadge: 0).apnsID != first.apnsID)
    }
}

@Suite struct ReservedKeyTests {
    @Test func extrasBuiltInCodeCannotReplaceOurKeys() throws {
        let ios = IOSNotification(alert: .text("a"), extras: ["aps": .string("x"), "_j_msgid": .int(1), "_j_message": .int(2), "k": .int(3)])
        let request = PushRequest(platform: .all, audience: .all, notification: PushNotification(ios: ios))
        #expect(try payloadText(request) == #"{"_j_msgid":42,"aps":{"alert":"a"},"k":3}"#)
    }
}
