import Testing
@testable import APNSSimulator

/// The simulator's HTTP/1.1 reader: requests whole, split, pipelined and with
/// `Expect: 100-continue`; each refusal with its status; the limits.
@Suite struct HTTP1RequestParserTests {
    private static func steps(_ text: String, parser: inout HTTP1RequestParser) -> HTTP1RequestParser.Step {
        Array(text.utf8).withUnsafeBufferPointer { parser.next($0) }
    }

    private static func step(_ text: String) -> HTTP1RequestParser.Step {
        var parser = HTTP1RequestParser()
        return steps(text, parser: &parser)
    }

    private static func status(_ text: String) -> Int? {
        if case let .refuse(status, _) = step(text) { status } else { nil }
    }

    static let send = "POST /v1/projects/p/messages:send HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ya29.t\r\n"
        + "Content-Type: application/json\r\nContent-Length: 5\r\n\r\n{\"a\"}"

    @Test func aWholeRequest() {
        guard case let .request(request, keepAlive, consumed) = Self.step(Self.send) else {
            Issue.record("not read: \(Self.step(Self.send))")
            return
        }
        #expect(request.method == "POST" && request.path == "/v1/projects/p/messages:send")
        #expect(request.authorization == "Bearer ya29.t")
        #expect(request.body == Array("{\"a\"}".utf8) && request.bodyLength == 5)
        #expect(keepAlive && consumed == Self.send.utf8.count)
    }

    @Test func splitAndPipelinedRequests() {
        var parser = HTTP1RequestParser()
        let bytes = Array(Self.send.utf8)
        for cut in [10, bytes.count - 6, bytes.count - 1] {
            #expect(Self.steps(String(decoding: bytes[..<cut], as: UTF8.self), parser: &parser) == .needMore)
        }
        let two = Self.send + "GET /x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
        guard case let .request(_, _, consumed) = Self.steps(two, parser: &parser) else {
            Issue.record("the first of two was not read")
            return
        }
        guard case let .request(second, keepAlive, rest) = Self.steps(String(decoding: Array(two.utf8)[consumed...], as: UTF8.self), parser: &parser) else {
            Issue.record("the second of two was not read")
            return
        }
        #expect(second.method == "GET" && second.path == "/x" && second.body.isEmpty)
        #expect(!keepAlive && consumed + rest == two.utf8.count)
    }

    @Test func expectContinueIsAnsweredOnce() {
        var parser = HTTP1RequestParser()
        let head = "POST /token HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"
        #expect(Self.steps(head, parser: &parser) == .sendContinue)
        #expect(Self.steps(head + "a", parser: &parser) == .needMore)
        guard case let .request(request, _, _) = Self.steps(head + "a=b", parser: &parser) else {
            Issue.record("the body did not complete the request")
            return
        }
        #expect(request.body == Array("a=b".utf8))
    }

    @Test func keepAliveByVersion() {
        if case let .request(_, keepAlive, _) = Self.step("GET / HTTP/1.0\r\n\r\n") { #expect(!keepAlive) } else { Issue.record("1.0") }
        if case let .request(_, keepAlive, _) = Self.step("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n") {
            #expect(keepAlive)
        } else {
            Issue.record("1.0 keep-alive")
        }
        if case let .request(_, keepAlive, _) = Self.step("\r\nGET / HTTP/1.1\r\nHost: h\r\nConnection: te, close\r\n\r\n") {
            #expect(!keepAlive)
        } else {
            Issue.record("1.1 close")
        }
    }

    @Test func badInputIsRefused() {
        #expect(Self.status("GET / HTTP/1.1\nHost: h\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.1\r\nHost: h\rx\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.1\r\nHost : h\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{1}b\r\n\r\n") == 400)
        #expect(Self.status("GET  / HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.1\r\n\r\n") == 400)
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n") == 400)
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n") == 400)
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 65537\r\n\r\n") == 413)
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n") == 501)
        #expect(Self.status("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") == 505)
        #expect(Self.status("GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "v", count: 9000))") == 431)
        // Within the limits, a head still arriving is waited for.
        #expect(Self.step("GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "v", count: 8000))") == .needMore)
        #expect(Self.step("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 65536\r\n\r\n") == .needMore)
    }

    @Test func answersAreFramedByLength() {
        let bytes = HTTP1Response.bytes(SimulatorResponse(status: 429, body: Array("{}".utf8), retryAfter: 7), close: false)
        #expect(String(decoding: bytes, as: UTF8.self)
            == "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: 2\r\nRetry-After: 7\r\n\r\n{}")
        let refusal = String(decoding: HTTP1Response.refusal(status: 400, message: "bad"), as: UTF8.self)
        #expect(refusal.hasPrefix("HTTP/1.1 400 Bad Request\r\n") && refusal.contains("Connection: close\r\n")
            && refusal.hasSuffix("\r\n\r\n{\"error\":\"bad\"}"))
    }
}
