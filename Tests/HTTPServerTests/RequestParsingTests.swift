import HTTPServer
import RelayAPI
import RelayCore
import Testing

@Suite("Request parsing")
struct RequestParsingTests {
    @Test("paths are percent-decoded; '+' stays '+' in a path")
    func pathDecoding() throws {
        let target = try RequestTarget(parsing: "/v3/aliases/a%20b+c%2Fd")
        #expect(target.path == "/v3/aliases/a b+c/d")
        #expect(target.query.isEmpty)
        #expect(try RequestTarget(parsing: "/caf%C3%A9").path == "/café")
    }

    @Test("query parameters decode '+' as space and the last occurrence wins")
    func queryDecoding() throws {
        let target = try RequestTarget(parsing: "/v3/devices?platform=ios&x=a+b%26c&x=last&flag")
        #expect(target.path == "/v3/devices")
        #expect(target.query == ["platform": "ios", "x": "last", "flag": ""])
        #expect(try RequestTarget(parsing: "/q?x=a+b%26c").query["x"] == "a b&c")
    }

    @Test("delimiters split on bytes: a combining mark after '?', '&' or '=' does not hide them")
    func combiningMarksAfterDelimiters() throws {
        let target = try RequestTarget(parsing: "/p?\u{301}x=\u{301}&\u{301}y=1")
        #expect(target.path == "/p")
        #expect(target.query == ["\u{301}x": "\u{301}", "\u{301}y": "1"])
    }

    @Test("absolute-form targets keep only path and query")
    func absoluteForm() throws {
        let target = try RequestTarget(parsing: "http://relay.example:8080/v3/push?a=1")
        #expect(target.path == "/v3/push")
        #expect(target.query == ["a": "1"])
        #expect(try RequestTarget(parsing: "http://relay.example").path == "/")
    }

    @Test("bad escapes and non-UTF-8 bytes throw 400 code 1003", arguments: [
        "/a%zz", "/a%4", "/a%", "/a%FF", "/ok?x=%E2%82", "/ok?%G1=1",
    ])
    func malformed(uri: String) {
        #expect(throws: HTTPRejection.self) { try RequestTarget(parsing: uri) }
        do {
            _ = try HTTPRequest(method: "GET", uri: uri)
            Issue.record("expected a failure for \(uri)")
        } catch {
            let answer = JPushRejection.error(for: error)
            #expect(answer.status == 400)
            #expect(answer.code == 1003)
        }
    }

    @Test("HTTPRequest upper-cases the method and takes a valid X-Request-Id")
    func requestInit() throws {
        let request = try HTTPRequest(method: "post", uri: "/v3/push?x=1", headers: ["x-request-id": "r-1"])
        #expect(request.method == "POST")
        #expect(request.path == "/v3/push")
        #expect(request.query == ["x": "1"])
        #expect(request.requestID == "r-1")
        let generated = try HTTPRequest(method: "GET", uri: "/", headers: ["X-Request-Id": "has space"])
        #expect(generated.requestID != "has space")
        #expect(RequestID.isValid(generated.requestID))
    }

    @Test("request ids: safe characters only, at most 128")
    func requestIDValidation() {
        #expect(RequestID.isValid("abc-DEF_123.4:5"))
        #expect(!RequestID.isValid(""))
        #expect(!RequestID.isValid("a b"))
        #expect(!RequestID.isValid("a\r\nX-Evil: 1"))
        #expect(!RequestID.isValid(String(repeating: "a", count: 129)))
        #expect(RequestID.isValid(String(repeating: "a", count: 128)))
        #expect(RequestID.generate() != RequestID.generate())
    }

    @Test("headers keep order, repeat names, and look up case-insensitively")
    func headers() {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "X-Tag", value: "1")
        headers.add(name: "x-tag", value: "2")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["X-TAG"] == "1")
        #expect(headers.values(for: "x-Tag") == ["1", "2"])
        #expect(headers["Missing"] == nil)
        #expect(headers.map(\.name) == ["Content-Type", "X-Tag", "x-tag"])
        headers.replaceOrAdd(name: "X-TAG", value: "3")
        #expect(headers.values(for: "x-tag") == ["3"])
        #expect(headers.count == 2)
    }

    @Test("HTTPResponse.json and .error set status, Content-Type and the JPush body")
    func responses() {
        let error = HTTPResponse.error(.bodyTooLarge("too big"))
        #expect(error.status == 413)
        #expect(error.headers["Content-Type"] == "application/json")
        #expect(error.body == JPushError.bodyTooLarge("too big").body)
        #expect(HTTPResponse.json(201, Array("{}".utf8)).status == 201)
    }
}
