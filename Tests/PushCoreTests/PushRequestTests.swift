import RelayCore
import Testing
@testable import PushCore

@Suite struct PushRequestTests {
    @Test func minimalBodyParsesWithDefaults() throws {
        let request = try push(body())
        #expect(request.platform == .only([.ios]))
        #expect(request.audience == .all)
        #expect(request.notification == PushNotification(alert: "hi"))
        #expect(request.message == nil)
        #expect(request.options == PushOptions())
        #expect(request.options.timeToLive == 86_400)
        #expect(request.options.apnsProduction)
        #expect(request.options.sendno == 0)
        #expect(request.cid == nil)
    }

    @Test func bodyMustBeAJSONObject() {
        #expect(rejection("") == JPushError(status: 400, code: 1002, message: "request body is empty; a JSON object is required"))
        #expect(rejection("{") == JPushError(status: 400, code: 1003, message: "request body is not valid JSON: expected a string key at byte 1"))
        #expect(rejection("[1]") == JPushError(status: 400, code: 1003, message: "request body must be a JSON object, got an array"))
    }

    /// Issue 22.3: extras may nest 16 levels; deeper is refused at the bracket that goes too
    /// deep, before the rest of the body is read.
    @Test func extrasNestAtMostSixteenLevels() throws {
        let nested = { (levels: Int) in String(repeating: #"{"k":"#, count: levels - 1) + "[]" + String(repeating: "}", count: levels - 1) }
        _ = try push(iosBody(#"{"alert":"a","extras":{"x":\#(nested(16))}}"#))
        let tooDeep = iosBody(#"{"alert":"a","extras":{"x":\#(nested(17))}}"#) + String(repeating: " ", count: 10_000)
        let error = try #require(rejection(tooDeep))
        #expect(error.code == 1003 && error.status == 400)
        #expect(error.message.hasPrefix("request body nests objects and arrays more than 20 levels deep (at byte "))
    }

    @Test func unknownTopLevelKeyIs1009() {
        #expect(rejection(body(#""sms":{}"#)) == JPushError(status: 400, code: 1009, message: "unknown field \"sms\""))
    }

    @Test func unknownNestedKeysNameTheirPath() {
        #expect(rejection(iosBody(#"{"alert":"a","colour":"red"}"#))?.message == "unknown field \"notification.ios.colour\"")
        #expect(rejection(iosBody(#"{"alert":{"body":"b","font":1}}"#))?.message == "unknown field \"notification.ios.alert.font\"")
        #expect(rejection(iosBody(#"{"sound":{"name":"a","pitch":1}}"#))?.message == "unknown field \"notification.ios.sound.pitch\"")
        #expect(rejection(body(#""options":{"priority":1}"#))?.message == "unknown field \"options.priority\"")
        #expect(rejection(body(notification: #"{"web":{}}"#))?.message == "unknown field \"notification.web\"")
        #expect(rejection(body(#""message":{"msg_content":"m","priority":1}"#))?.message == "unknown field \"message.priority\"")
        for body in [iosBody(#"{"colour":1}"#), body(audience: #"{"segment":["s"]}"#)] {
            #expect(rejection(body)?.code == 1009)
        }
    }

    @Test func platformAndAudienceAreRequired() {
        #expect(rejection(#"{"audience":"all","notification":{"alert":"a"}}"#)
            == JPushError(status: 400, code: 1002, message: "platform is required"))
        #expect(rejection(#"{"platform":"all","notification":{"alert":"a"}}"#)
            == JPushError(status: 400, code: 1002, message: "audience is required"))
        #expect(rejection(#"{"platform":"all","audience":null,"notification":{"alert":"a"}}"#)?.code == 1002)
    }

    @Test func notificationOrMessageIsRequired() {
        #expect(rejection(body(notification: nil)) == JPushError(status: 400, code: 1002, message: "notification or message is required"))
        #expect(rejection(body(notification: "null"))?.code == 1002)
        #expect(rejection(body(notification: "{}"))
            == JPushError(status: 400, code: 1002, message: "notification must carry alert or a platform block such as ios"))
        #expect(rejection(body(notification: "\"hi\""))
            == JPushError(status: 400, code: 1003, message: "notification must be an object, got a string"))
    }

    @Test func platformForms() throws {
        #expect(try push(body(platform: #""all""#)).platform == .all)
        #expect(try push(body(platform: #"["ios","android"]"#)).platform == .only([.ios, .android]))
        #expect(try push(body(platform: #"["ios","ios"]"#)).platform == .only([.ios]))
        // Leniently, one name alone.
        #expect(try push(body(platform: #""ios""#)).platform == .only([.ios]))
        for name in ["android", "winphone", "quickapp", "hmos"] {
            let request = try push(body(platform: "[\"\(name)\"]"))
            #expect(!request.platform.includesIOS)
        }
        #expect(PlatformSelection.all.includesIOS)
    }

    @Test func platformErrors() {
        #expect(rejection(body(platform: #"["ios","symbian"]"#)) == JPushError(
            status: 400, code: 1003,
            message: "platform[1] \"symbian\" is not a platform; use \"all\" or some of ios, android, winphone, quickapp, hmos"))
        #expect(rejection(body(platform: "[]"))?.message == "platform must be \"all\" or a non-empty list")
        #expect(rejection(body(platform: "[1]"))?.message == "platform[0] must be a string, got a number")
        #expect(rejection(body(platform: "{}"))?.message == "platform must be \"all\" or a list, got an object")
        #expect(rejection(body(platform: #""ALL""#))?.code == 1003)
    }

    @Test func otherPlatformsAreAcceptedButNotCheckedForIOS() throws {
        // Nothing for iOS, but iOS is not a target: accepted.
        let request = try push(body(platform: #"["android"]"#, notification: #"{"android":{"alert":"a","builder_id":1}}"#))
        #expect(request.notification?.android?.alert == "a" && request.ignored == ["notification.android.builder_id"])
        let hmos = try push(body(platform: #"["hmos"]"#, notification: #"{"hmos":{"alert":"a","builder_id":1}}"#))
        #expect(hmos.notification?.otherPlatforms["hmos"]?["builder_id"] == .int(1))
        #expect(rejection(body(notification: #"{"android":"a"}"#))?.message == "notification.android must be an object, got a string")
    }

    @Test func nothingForIOSIsRejectedWhenIOSIsTargeted() {
        let expected = JPushError(
            status: 400, code: 1002,
            message: "nothing to deliver to iOS: give notification.alert, notification.ios with alert, sound, badge or content-available, or a message")
        #expect(rejection(iosBody(#"{"extras":{"k":"v"}}"#)) == expected)
        #expect(rejection(iosBody(#"{"alert":""}"#)) == expected)
        #expect(rejection(iosBody(#"{"mutable-content":true,"category":"c"}"#)) == expected)
    }

    @Test func cid() throws {
        #expect(try push(body(#""cid":"8103a4c628a0b98974ec1949-711261d4-5f17-4d2f-a855-5e5a8909b26e""#)).cid
            == "8103a4c628a0b98974ec1949-711261d4-5f17-4d2f-a855-5e5a8909b26e")
        let longest = String(repeating: "c", count: 128)
        #expect(try push(body("\"cid\":\"\(longest)\"")).cid == longest)
        let expected = JPushError(status: 400, code: 1003, message: "cid must be 1 to 128 bytes without control characters")
        #expect(rejection(body("\"cid\":\"\(longest)c\"")) == expected)
        #expect(rejection(body(#""cid":"""#)) == expected)
        #expect(rejection(body(#""cid":"a\nb""#)) == expected)
        #expect(rejection(body(#""cid":12"#))?.message == "cid must be a string, got a number")
    }

    @Test func nullMeansAbsent() throws {
        let request = try push(body(#""options":null,"cid":null,"message":null"#))
        #expect(request.options == PushOptions())
        #expect(request.cid == nil)
        #expect(request.message == nil)
    }
}
