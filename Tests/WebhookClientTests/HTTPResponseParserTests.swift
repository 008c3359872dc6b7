import Testing
@testable import WebhookClient

struct HTTPResponseParserTests {
    typealias Parser = HTTPResponseParser

    /// Feeds `text` whole, then byte by byte: the outcome must not depend on how it arrives.
    func parse(_ text: String, limits: Parser.Limits = .init(), close: Bool = false) -> Parser.Progress {
        var whole = Parser(limits: limits)
        var progress = whole.parse(Array(text.utf8))
        if close, progress == .needMore { progress = whole.endOfInput() }
        var bytewise = Parser(limits: limits)
        var stepped = Parser.Progress.needMore
        for byte in text.utf8 where stepped == .needMore { stepped = bytewise.parse([byte]) }
        if close, stepped == .needMore { stepped = bytewise.endOfInput() }
        #expect(stepped == progress)
        return progress
    }

    func answered(_ progress: Parser.Progress) -> Parser.Response? {
        if case let .answered(response) = progress { return response }
        return nil
    }

    @Test func contentLength() throws {
        let response = try #require(answered(parse("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")))
        #expect(response.status == 200)
        #expect(response.headers == [.init(name: "content-type", value: "text/plain"), .init(name: "content-length", value: "5")])
        #expect(response.body == Array("hello".utf8))
        #expect(response.bodyComplete)
    }

    @Test func waitsForTheWholeBody() {
        #expect(parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel") == .needMore)
        #expect(parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n") == .needMore)
    }

    @Test func chunked() throws {
        let text = "HTTP/1.1 500 Oops\r\nTransfer-Encoding: gzip, chunked\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\n\r\n"
        let response = try #require(answered(parse(text)))
        #expect(response.status == 500)
        #expect(String(decoding: response.body, as: UTF8.self) == "Wikipedia in\r\n\r\nchunks.")
        #expect(response.bodyComplete)
    }

    @Test func untilTheClose() throws {
        #expect(parse("HTTP/1.0 200 OK\r\n\r\nsome body") == .needMore)
        let response = try #require(answered(parse("HTTP/1.0 200 OK\r\n\r\nsome body", close: true)))
        #expect(response.body == Array("some body".utf8))
        #expect(response.bodyComplete)
    }

    @Test func noBodyFor204And304AndLengthZero() throws {
        #expect(try #require(answered(parse("HTTP/1.1 204 No Content\r\n\r\n"))).status == 204)
        #expect(try #require(answered(parse("HTTP/1.1 304 Not Modified\r\n\r\n"))).status == 304)
        #expect(try #require(answered(parse("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))).body == [])
    }

    @Test func skipsInterimAnswers() throws {
        let response = try #require(answered(parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")))
        #expect(response.status == 201)
    }

    @Test func bareLineFeedsAndNoReasonPhrase() throws {
        let response = try #require(answered(parse("HTTP/1.1 404\nContent-Length: 2\n\nno")))
        #expect(response.status == 404)
        #expect(response.body == Array("no".utf8))
    }

    @Test func stopsAtTheBodyLimit() throws {
        var limits = Parser.Limits()
        limits.bodyBytes = 8
        let long = String(repeating: "x", count: 100)
        for text in ["HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n\(long)", "HTTP/1.1 200 OK\r\n\r\n\(long)",
                     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n64\r\n\(long)\r\n0\r\n\r\n"] {
            let response = try #require(answered(parse(text, limits: limits)))
            #expect(response.body == Array(repeating: UInt8(ascii: "x"), count: 8))
            #expect(!response.bodyComplete)
        }
        // Answered as soon as the limit is reached, not at the end of the body.
        var parser = Parser(limits: limits)
        #expect(answered(parser.parse(Array("HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\n\r\n12345678".utf8))) != nil)
    }

    @Test func aBodyCutShortStillAnswers() throws {
        let response = try #require(answered(parse("HTTP/1.1 503 Busy\r\nContent-Length: 50\r\n\r\nshort", close: true)))
        #expect(response.status == 503)
        #expect(!response.bodyComplete)
    }

    @Test func refusesAnOversizedHead() {
        var limits = Parser.Limits()
        limits.headBytes = 64
        let header = "X-Filler: " + String(repeating: "a", count: 100) + "\r\n"
        #expect(parse("HTTP/1.1 200 OK\r\n" + header + "\r\n", limits: limits) == .malformed("the answer's head is over 64 bytes"))
        // Refused before the end of the head is seen too.
        #expect(parse("HTTP/1.1 200 OK\r\n" + header, limits: limits) == .malformed("the answer's head is over 64 bytes"))
    }

    @Test(arguments: [
        ("SSH-2.0-OpenSSH_9.2\r\n\r\n", "the answer does not start with an HTTP/1.x status line"),
        ("HTTP/2 200\r\n\r\n", "the answer does not start with an HTTP/1.x status line"),
        ("HTTP/1.1 20 OK\r\n\r\n", "the answer does not start with an HTTP/1.x status line"),
        ("HTTP/1.1 2000 OK\r\n\r\n", "the answer does not start with an HTTP/1.x status line"),
        ("HTTP/1.1 700 Huh\r\n\r\n", "the answer does not start with an HTTP/1.x status line"),
        ("HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n", "the answer has a malformed header line"),
        ("HTTP/1.1 200 OK\r\n folded: value\r\n\r\n", "the answer has a malformed header line"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello", "the answer's Content-Length is not one whole number"),
        ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "the answer's Content-Length is not one whole number"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", "the answer's Content-Length is not one whole number"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "a chunk size is not a hexadecimal number"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\n", "a chunk size is not a hexadecimal number"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n", "a chunk size is not a hexadecimal number"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY", "a chunk's data is not followed by CRLF"),
    ])
    func malformed(_ text: String, _ problem: String) {
        #expect(parse(text) == .malformed(problem))
    }

    @Test func endlessChunkSizeLine() {
        let text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1" + String(repeating: ";", count: 2000)
        #expect(parse(text) == .malformed("a chunk-size line is over 1024 bytes"))
    }

    @Test func closedEarly() {
        var parser = Parser()
        #expect(parser.endOfInput() == .malformed("the server closed the connection without answering"))
        #expect(parse("HTTP/1.1 200 OK\r\nContent-", close: true) == .malformed("the server closed the connection in the middle of the answer's head"))
    }

    @Test func staysFinished() {
        var parser = Parser()
        let first = parser.parse(Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))
        #expect(parser.parse(Array("garbage".utf8)) == first)
        #expect(parser.endOfInput() == first)
    }
}
