import RelayCore
import Testing
@testable import PushCore

@Suite struct OptionsTests {
    func options(_ json: String) throws(JPushError) -> PushOptions {
        try push(body("\"options\":\(json)")).options
    }

    func error(_ json: String) -> JPushError? {
        rejection(body("\"options\":\(json)"))
    }

    @Test func everyOption() throws {
        let parsed = try options(#"""
            {"sendno":12345,"time_to_live":60,"apns_production":false,"apns_collapse_id":"score",
             "override_msg_id":"18100012345678901","big_push_duration":30}
            """#)
        #expect(parsed == PushOptions(
            sendno: 12345, timeToLive: 60, apnsProduction: false, apnsCollapseID: "score",
            overrideMsgID: MessageID(rawValue: 18_100_012_345_678_901), bigPushDuration: 30))
        #expect(try options("{}") == PushOptions())
    }

    @Test func sendno() throws {
        #expect(try options(#"{"sendno":0}"#).sendno == 0)
        #expect(try options(#"{"sendno":2147483647}"#).sendno == 2_147_483_647)
        #expect(try options(#"{"sendno":"77"}"#).sendno == 77)
        #expect(error(#"{"sendno":2147483648}"#)
            == JPushError(status: 400, code: 1003, message: "options.sendno must be an integer from 0 to 2147483647, got 2147483648"))
        #expect(error(#"{"sendno":-1}"#)?.message == "options.sendno must be an integer from 0 to 2147483647, got -1")
        #expect(error(#"{"sendno":"x"}"#)?.message == "options.sendno must be an integer from 0 to 2147483647, got \"x\"")
        #expect(error(#"{"sendno":""}"#)?.code == 1003)
        #expect(error(#"{"sendno":1.5}"#)?.code == 1003)
    }

    @Test func timeToLiveEdges() throws {
        #expect(try options(#"{"time_to_live":0}"#).timeToLive == 0)
        #expect(try options(#"{"time_to_live":864000}"#).timeToLive == 864_000)
        #expect(error(#"{"time_to_live":864001}"#)
            == JPushError(status: 400, code: 1003, message: "options.time_to_live must be from 0 to 864000, got 864001"))
        #expect(error(#"{"time_to_live":-1}"#)?.message == "options.time_to_live must be from 0 to 864000, got -1")
        #expect(error(#"{"time_to_live":"60"}"#)?.message == "options.time_to_live must be an integer, got a string")
    }

    @Test func apnsProductionDefaultsToProduction() throws {
        #expect(try options("{}").apnsProduction)
        #expect(try options(#"{"apns_production":true}"#).apnsProduction)
        #expect(try options(#"{"apns_production":false}"#).apnsProduction == false)
        #expect(try options(#"{"apns_production":0}"#).apnsProduction == false)
        #expect(error(#"{"apns_production":"false"}"#)?.message == "options.apns_production must be true, false, 0 or 1, got \"false\"")
    }

    @Test func collapseIDEdges() throws {
        let sixtyFour = String(repeating: "x", count: 64)
        #expect(try options("{\"apns_collapse_id\":\"\(sixtyFour)\"}").apnsCollapseID == sixtyFour)
        #expect(error("{\"apns_collapse_id\":\"\(sixtyFour)x\"}")
            == JPushError(status: 400, code: 1003, message: "options.apns_collapse_id is 65 bytes; at most 64 are allowed"))
        // Bytes, not characters: 22 ideographs are 66 bytes.
        #expect(error("{\"apns_collapse_id\":\"\(String(repeating: "中", count: 22))\"}")?.message
            == "options.apns_collapse_id is 66 bytes; at most 64 are allowed")
        #expect(try options(#"{"apns_collapse_id":""}"#).apnsCollapseID == nil)
    }

    /// It becomes the apns-collapse-id header: a value nghttp2 or APNs would refuse is
    /// refused here (issue 22 §4), not retried for a day.
    @Test func collapseIDMustBeAHeaderValue() throws {
        for (json, shown) in [(#""a\r\nb""#, "0x0D"), (#""a\nb""#, "0x0A"), (#""a\u0000b""#, "0x00"), (#""\tb""#, "0x09"),
                              (#""a\u007Fb""#, "0x7F"), (#""a\u001Bb""#, "0x1B")] {
            #expect(error("{\"apns_collapse_id\":\(json)}") == JPushError(
                status: 400, code: 1003,
                message: "options.apns_collapse_id contains a control character (\(shown)); header values may not"), "\(json)")
        }
        #expect(error(#"{"apns_collapse_id":" a"}"#)?.message == "options.apns_collapse_id starts or ends with a space; header values may not")
        #expect(error(#"{"apns_collapse_id":"a "}"#)?.code == 1003)
        #expect(try options(#"{"apns_collapse_id":"a b-é_中"}"#).apnsCollapseID == "a b-é_中")
    }

    @Test func overrideMsgIDAsStringOrNumber() throws {
        #expect(try options(#"{"override_msg_id":9223372036854775807}"#).overrideMsgID == MessageID(rawValue: .max))
        #expect(try options(#"{"override_msg_id":"1"}"#).overrideMsgID == MessageID(rawValue: 1))
        let message = { (shown: String) in
            "options.override_msg_id must be a msg_id (a positive 64-bit integer, as a string or a number), got \(shown)"
        }
        #expect(error(#"{"override_msg_id":0}"#) == JPushError(status: 400, code: 1003, message: message("0")))
        #expect(error(#"{"override_msg_id":"9223372036854775808"}"#)?.message == message("\"9223372036854775808\""))
        #expect(error(#"{"override_msg_id":"12a"}"#)?.message == message("\"12a\""))
        #expect(error(#"{"override_msg_id":true}"#)?.message == message("true"))
    }

    @Test func bigPushDurationEdges() throws {
        #expect(try options(#"{"big_push_duration":0}"#).bigPushDuration == 0)
        #expect(try options(#"{"big_push_duration":1400}"#).bigPushDuration == 1400)
        #expect(error(#"{"big_push_duration":1401}"#)?.message == "options.big_push_duration must be from 0 to 1400, got 1401")
        #expect(error(#"{"big_push_duration":-1}"#)?.code == 1003)
    }

    @Test func optionsMustBeAnObject() {
        #expect(error("[]")?.message == "options must be an object, got an array")
    }
}

@Suite struct MessageTests {
    @Test func fields() throws {
        let request = try push(body(#""message":{"msg_content":"m","title":"t","content_type":"text","extras":{"k":"v"}}"#, notification: nil))
        #expect(request.message == PushMessage(msgContent: "m", title: "t", contentType: "text", extras: ["k": .string("v")]))
        #expect(request.notification == nil)
    }

    @Test func msgContentIsRequired() {
        #expect(rejection(body(#""message":{"title":"t"}"#, notification: nil))
            == JPushError(status: 400, code: 1002, message: "message.msg_content is required"))
        #expect(rejection(body(#""message":{"msg_content":5}"#, notification: nil))?.message
            == "message.msg_content must be a string, got a number")
        #expect(rejection(body(#""message":{"msg_content":"m","extras":[]}"#, notification: nil))?.message
            == "message.extras must be an object, got an array")
        #expect(rejection(body(#""message":"m""#, notification: nil))?.message == "message must be an object, got a string")
    }
}
