import RelayCore
import Testing
@testable import PushCore

@Suite struct IOSNotificationTests {
    func ios(_ json: String) throws -> IOSNotification {
        try #require(try push(iosBody(json)).notification?.ios)
    }

    func error(_ json: String) -> JPushError? {
        rejection(iosBody(json))
    }

    @Test func everyField() throws {
        let parsed = try ios(#"""
            {"alert":"a","sound":"ping.caf","badge":3,"content-available":true,"mutable-content":true,
             "category":"reply","thread-id":"chat-9","interruption-level":"time-sensitive","relevance-score":0.75,
             "target-content-id":"chat-window-9","extras":{"k":[1,"v"]}}
            """#)
        #expect(parsed == IOSNotification(
            alert: .text("a"), sound: .named("ping.caf"), badge: .set(3), contentAvailable: true, mutableContent: true,
            category: "reply", threadID: "chat-9", interruptionLevel: .timeSensitive, relevanceScore: 0.75,
            targetContentID: "chat-window-9", extras: ["k": .array([.int(1), .string("v")])]))
    }

    @Test func relevanceScoreIsFromZeroToOne() throws {
        #expect(try ios(#"{"alert":"a","relevance-score":0}"#).relevanceScore == 0)
        #expect(try ios(#"{"alert":"a","relevance-score":1}"#).relevanceScore == 1)
        #expect(error(#"{"alert":"a","relevance-score":1.5}"#)?.message == "notification.ios.relevance-score must be from 0 to 1, got 1.5")
        #expect(error(#"{"alert":"a","relevance-score":-0.1}"#)?.code == 1003)
        #expect(error(#"{"alert":"a","relevance-score":"high"}"#)?.message == "notification.ios.relevance-score must be a number, got a string")
        #expect(error(#"{"alert":"a","target-content-id":5}"#)?.message == "notification.ios.target-content-id must be a string, got a number")
    }

    @Test func alertDictionary() throws {
        let parsed = try ios(#"""
            {"alert":{"title":"T","subtitle":"S","body":"B","loc-key":"K","loc-args":["x","y"],"title-loc-key":"TK",
             "title-loc-args":["z"],"subtitle-loc-key":"SK","subtitle-loc-args":[],"launch-image":"l.png",
             "action-loc-key":"A","summary-arg":"s","summary-arg-count":2}}
            """#)
        guard case .dictionary(let fields)? = parsed.alert else { Issue.record("not a dictionary"); return }
        #expect(fields.count == 13)
        #expect(fields["loc-args"] == .array([.string("x"), .string("y")]))
        #expect(error(#"{"alert":{}}"#)?.message == "notification.ios.alert is an empty object; give a string or title/body/loc-key")
        #expect(error(#"{"alert":{"title":null}}"#)?.message == "notification.ios.alert is an empty object; give a string or title/body/loc-key")
        #expect(error(#"{"alert":{"title":1}}"#)?.message == "notification.ios.alert.title must be a string, got a number")
        #expect(error(#"{"alert":{"loc-args":"x"}}"#)?.message == "notification.ios.alert.loc-args must be an array, got a string")
        #expect(error(#"{"alert":{"loc-args":[1]}}"#)?.message == "notification.ios.alert.loc-args[0] must be a string, got a number")
        #expect(error(#"{"alert":{"summary-arg-count":-1}}"#)?.message
            == "notification.ios.alert.summary-arg-count must be from 0 to 2147483647, got -1")
        #expect(error(#"{"alert":5}"#)?.message == "notification.ios.alert must be a string or an object, got a number")
    }

    @Test func sounds() throws {
        #expect(try ios(#"{"alert":"a","sound":"default"}"#).sound == .named("default"))
        // An empty name means no sound, like the Python SDK's sound_disable.
        #expect(try ios(#"{"alert":"a","sound":""}"#).sound == nil)
        #expect(try ios(#"{"alert":"a","sound":{"critical":1,"name":"alarm.caf","volume":0.5}}"#).sound
            == .dictionary(name: "alarm.caf", critical: true, volume: 0.5))
        #expect(try ios(#"{"alert":"a","sound":{"critical":false,"name":"n"}}"#).sound == .dictionary(name: "n", critical: false, volume: nil))
        #expect(try ios(#"{"alert":"a","sound":{"critical":true,"name":"n","volume":0}}"#).sound == .dictionary(name: "n", critical: true, volume: 0))
        #expect(try ios(#"{"alert":"a","sound":{"critical":true,"name":"n","volume":1}}"#).sound == .dictionary(name: "n", critical: true, volume: 1))
        #expect(error(#"{"alert":"a","sound":{"critical":1,"name":"n","volume":1.01}}"#)?.message
            == "notification.ios.sound.volume must be from 0 to 1, got 1.01")
        #expect(error(#"{"alert":"a","sound":{"critical":1,"name":"n","volume":-0.1}}"#)?.code == 1003)
        #expect(error(#"{"alert":"a","sound":{"critical":1,"name":"n","volume":"loud"}}"#)?.message
            == "notification.ios.sound.volume must be a number, got a string")
        #expect(error(#"{"alert":"a","sound":{"critical":1}}"#) == JPushError(status: 400, code: 1002, message: "notification.ios.sound.name is required"))
        #expect(error(#"{"alert":"a","sound":{"critical":2,"name":"n"}}"#)?.message
            == "notification.ios.sound.critical must be true, false, 0 or 1, got 2")
        #expect(error(#"{"alert":"a","sound":1}"#)?.message == "notification.ios.sound must be a string or an object, got a number")
    }

    @Test func badgeForms() throws {
        #expect(try ios(#"{"badge":0}"#).badge == .set(0))
        #expect(try ios(#"{"badge":1000000}"#).badge == .set(1_000_000))
        #expect(try ios(#"{"badge":"+1"}"#).badge == .add(1))
        #expect(try ios(#"{"badge":"-3"}"#).badge == .add(-3))
        #expect(try ios(#"{"badge":"+0"}"#).badge == .add(0))
        #expect(try ios(#"{"badge":"+1000000"}"#).badge == .add(1_000_000))
        #expect(try ios(#"{"badge":"-1000000"}"#).badge == .add(-1_000_000))
        // Leniently, digits alone set the badge.
        #expect(try ios(#"{"badge":"7"}"#).badge == .set(7))
    }

    @Test func badgeErrors() {
        #expect(error(#"{"badge":-1}"#) == JPushError(status: 400, code: 1003, message: "notification.ios.badge must be from 0 to 1000000, got -1"))
        #expect(error(#"{"badge":1000001}"#)?.message == "notification.ios.badge must be from 0 to 1000000, got 1000001")
        let stringError = { (shown: String) in
            "notification.ios.badge must be an integer from 0 to 1000000, or \"+N\" / \"-N\" with N up to 1000000; got \(shown)"
        }
        for bad in ["+1000001", "auto", "+", "-", "", "1.5", "+ 1", "++1", "+1a", "+99999999999999999999", "١"] {
            #expect(error("{\"badge\":\"\(bad)\"}")?.message == stringError("\"\(bad)\""), "\(bad)")
        }
        #expect(error(#"{"badge":1.5}"#)?.message == "notification.ios.badge must be an integer or a \"+N\" / \"-N\" string, got a number")
        #expect(error(#"{"badge":true}"#)?.code == 1003)
    }

    @Test func flagsAcceptBooleansAndZeroOrOne() throws {
        #expect(try ios(#"{"content-available":1}"#).contentAvailable)
        #expect(try ios(#"{"alert":"a","content-available":0}"#).contentAvailable == false)
        #expect(try ios(#"{"alert":"a","mutable-content":1}"#).mutableContent)
        #expect(try ios(#"{"alert":"a","mutable-content":false}"#).mutableContent == false)
        #expect(error(#"{"alert":"a","mutable-content":2}"#)
            == JPushError(status: 400, code: 1003, message: "notification.ios.mutable-content must be true, false, 0 or 1, got 2"))
        #expect(error(#"{"alert":"a","content-available":"yes"}"#)?.message
            == "notification.ios.content-available must be true, false, 0 or 1, got \"yes\"")
    }

    @Test func interruptionLevels() throws {
        for level in InterruptionLevel.allCases {
            #expect(try ios("{\"alert\":\"a\",\"interruption-level\":\"\(level.rawValue)\"}").interruptionLevel == level)
        }
        #expect(error(#"{"alert":"a","interruption-level":"urgent"}"#)?.message
            == "notification.ios.interruption-level must be one of passive, active, time-sensitive, critical, got \"urgent\"")
    }

    @Test func stringFields() {
        #expect(error(#"{"alert":"a","category":1}"#)?.message == "notification.ios.category must be a string, got a number")
        #expect(error(#"{"alert":"a","thread-id":[]}"#)?.message == "notification.ios.thread-id must be a string, got an array")
        #expect(error(#"{"alert":"a","extras":"x"}"#)?.message == "notification.ios.extras must be an object, got a string")
        #expect(rejection(body(notification: #"{"ios":[]}"#))?.message == "notification.ios must be an object, got an array")
        #expect(rejection(body(notification: #"{"alert":1}"#))?.message == "notification.alert must be a string, got a number")
    }

    @Test func extrasMayNotSetReservedKeys() {
        for key in ["aps", "_j_msgid", "_j_message"] {
            #expect(error("{\"alert\":\"a\",\"extras\":{\"\(key)\":1}}") == JPushError(
                status: 400, code: 1003, message: "notification.ios.extras may not set \"\(key)\"; PushRelay writes that key itself"))
        }
    }
}
