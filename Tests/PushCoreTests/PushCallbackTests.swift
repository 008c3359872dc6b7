import RelayCore
import Testing
@testable import PushCore

/// JPush's `callback` (issue 28): `url` checked like a webhook's, `params` an object of at
/// most 1 KiB, `type` JPush's bits (1, 2, 8 and their sums), as a number or its text.
@Suite struct PushCallbackTests {
    static func parse(_ callback: String) throws(JPushError) -> PushCallback? {
        try PushRequest.parse(Array(#"{"platform":"ios","audience":"all","notification":{"alert":"a"},"callback":\#(callback)}"#.utf8)).callback
    }

    @Test func aFullCallbackIsRead() throws {
        let callback = try #require(try Self.parse(#"{"url":"HTTPS://Example.com:443/cb?x=1","params":{"order":"7","n":1},"type":9}"#))
        #expect(callback.url?.text == "https://example.com/cb?x=1")
        #expect(callback.params == ["order": .string("7"), "n": .int(1)])
        #expect(callback.types == [.received, .accepted])
    }

    @Test func everythingIsOptional() throws {
        #expect(try Self.parse("{}") == PushCallback(url: nil, params: [:], types: [.received, .clicked]))
        #expect(try Self.parse("null") == nil)
        #expect(try Self.parse(#"{"url":null,"params":null,"type":null}"#) == PushCallback())
    }

    @Test(arguments: [(#""1""#, 1), ("2", 2), ("3", 3), ("8", 8), (#""10""#, 10), ("11", 11)])
    func typesAreJPushsBitsAsANumberOrText(type: String, bits: Int) throws {
        #expect(try Self.parse(#"{"type":\#(type)}"#)?.types.rawValue == bits)
    }

    @Test(arguments: ["0", "4", "5", "12", "16", "-1", "3.5", #""x""#, #""""#, #"" 3""#, "true", "[1]"])
    func otherTypesAre1003(type: String) {
        do {
            _ = try Self.parse(#"{"type":\#(type)}"#)
            Issue.record("type \(type) accepted")
        } catch {
            #expect(error.code == 1003 && error.message.hasPrefix("callback.type must be 1 (received), 2 (clicked), 8 (accepted)"), "\(error)")
        }
    }

    /// A stored body is parsed for sending without its callback, read once when the message
    /// went in: one accepted before callbacks were built still sends.
    @Test func aStoredBodyIsReadWithoutItsCallback() throws {
        let body = Array(#"{"platform":"ios","audience":"all","notification":{"alert":"a"},"callback":{"type":4,"url":7}}"#.utf8)
        #expect(throws: JPushError.self) { try PushRequest.parse(body) }
        let stored = try PushRequest.parseStored(body)
        #expect(stored.callback == nil && stored.notification?.alert == "a")
        let valid = Array(#"{"platform":"ios","audience":"all","notification":{"alert":"a"},"callback":{"type":1}}"#.utf8)
        #expect(try PushRequest.parseStored(valid).callback == nil)
        #expect(try PushRequest.parseStored(Array(#"{"platform":"ios","audience":"all","notification":{"alert":"b"}}"#.utf8)).notification?.alert == "b")
    }

    @Test func badURLsAreRefusedNamingTheField() {
        let cases = [
            (#""ftp://example.com/cb""#, "callback.url: url must use http or https"),
            (#""https://user:pw@example.com/""#, "callback.url: url must not hold a user name or password"),
            (#""example.com""#, "callback.url: url must start with http:// or https://"),
            ("7", "callback.url must be a string, got a number"),
        ]
        for (url, message) in cases {
            #expect(throws: JPushError(status: 400, code: 1003, message: message)) { try Self.parse(#"{"url":\#(url)}"#) }
        }
    }

    @Test func paramsMustBeASmallObject() throws {
        #expect(throws: JPushError(status: 400, code: 1003, message: "callback.params must be an object, got an array")) {
            try Self.parse(#"{"params":[1]}"#)
        }
        let fits = String(repeating: "x", count: PushCallback.maxParamsBytes - 8)
        #expect(try Self.parse(#"{"params":{"k":"\#(fits)"}}"#)?.params.count == 1)
        #expect(throws: JPushError(status: 400, code: 1003, message: "callback.params is 1025 bytes as JSON; at most 1024 are allowed")) {
            try Self.parse(#"{"params":{"k":"\#(fits)x"}}"#)
        }
    }

    @Test func unknownKeysAre1009() {
        #expect(throws: JPushError(status: 400, code: 1009, message: "unknown field \"callback.secret\"")) {
            try Self.parse(#"{"secret":"s"}"#)
        }
    }

    @Test func anAppWithoutAWebhookHasItNamedIgnored() throws {
        let request = try PushRequest.parse(Array(#"{"platform":"ios","audience":"all","notification":{"alert":"a"},"sms_message":{"temp_id":1},"callback":{}}"#.utf8))
        #expect(request.ignored == ["sms_message"])
        #expect(request.callbackIgnored().ignored == ["callback", "sms_message"])
        #expect(request.callbackIgnored().callbackIgnored().ignored == ["callback", "sms_message"])
        var plain = request
        plain.callback = nil
        #expect(plain.callbackIgnored().ignored == ["sms_message"])
    }
}
