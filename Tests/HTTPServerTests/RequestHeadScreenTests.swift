@testable import HTTPServer
import RelayAPI
import RelayCore
import Testing

/// The request-head screen on bytes alone: what RFC 9112 says to refuse, fed whole or a
/// byte at a time.
@Suite struct RequestHeadScreenTests {
    static func verdict(_ head: String, maxBodySize: Int = 1024, byteAtATime: Bool = false) -> RequestHeadScreen.Verdict {
        var screen = RequestHeadScreen(maxBodySize: maxBodySize)
        guard byteAtATime else { return screen.feed(Array(head.utf8)) }
        for byte in head.utf8 where screen.feed([byte]) != .incomplete {}
        return screen.verdict
    }

    @Test(arguments: [false, true]) func wellFormedHeadsPass(byteAtATime: Bool) {
        for head in [
            "GET / HTTP/1.1\r\nHost: t\r\n\r\n",
            "\r\nPOST /e HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\ncontent-length: 5\r\n\r\nhello",
            "POST /e HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "POST /e HTTP/1.1\r\nContent-Length:  0012 \r\nX-Empty:\r\n\r\n",
        ] {
            #expect(Self.verdict(head, byteAtATime: byteAtATime) == .passed, "\(head.debugDescription)")
        }
    }

    @Test(arguments: [false, true]) func smugglingPrimitivesAreRejected(byteAtATime: Bool) {
        let cases: [(String, RequestHeadScreen.Violation)] = [
            ("POST /e HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 30\r\n\r\n", .conflictingContentLength),
            ("GET / HTTP/1.1\r\nX-A: a\r\n b\r\n\r\n", .obsoleteLineFolding),
            ("GET / HTTP/1.1\r\nX-A: a\r\n\tb\r\n\r\n", .obsoleteLineFolding),
            ("GET / HTTP/1.1\nHost: t\n\n", .bareLineEnding),
            ("GET / HTTP/1.1\r\nHost: t\n\r\n", .bareLineEnding),
            ("GET / HTTP/1.1\r\nHost: t\rX: y\r\n\r\n", .bareLineEnding),
            ("POST /e HTTP/1.1\r\nContent-Length : 5\r\n\r\n", .invalidFieldName),
            ("POST /e HTTP/1.1\r\nContent-Length\t: 5\r\n\r\n", .invalidFieldName),
            ("GET / HTTP/1.1\r\nno colon here\r\n\r\n", .invalidFieldName),
            ("GET / HTTP/1.1\r\n: empty name\r\n\r\n", .invalidFieldName),
            ("POST /e HTTP/1.1\r\nTransfer-Encoding: identity\r\nTransfer-Encoding: chunked\r\n\r\n", .unsupportedTransferEncoding),
            ("POST /e HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", .unsupportedTransferEncoding),
            ("POST /e HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferEncoding),
            ("POST /e HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", .unsupportedTransferEncoding),
            ("POST /e HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n", .invalidContentLength),
            ("POST /e HTTP/1.1\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
            ("POST /e HTTP/1.1\r\nContent-Length:\r\n\r\n", .invalidContentLength),
            ("POST /e HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", .contentLengthTooLarge),
            ("POST /e HTTP/1.1\r\nContent-Length: 1025\r\n\r\n", .contentLengthTooLarge),
        ]
        for (head, violation) in cases {
            #expect(Self.verdict(head, byteAtATime: byteAtATime) == .rejected(violation), "\(head.debugDescription)")
        }
    }

    @Test func theVerdictComesAsSoonAsTheOffendingLineEnds() {
        var screen = RequestHeadScreen(maxBodySize: 10)
        #expect(screen.feed(Array("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999".utf8)) == .incomplete)
        #expect(screen.feed(Array("\r\n".utf8)) == .rejected(.contentLengthTooLarge), "before the head ends")
        #expect(screen.feed(Array("\r\n".utf8)) == .rejected(.contentLengthTooLarge), "and it stays")
    }

    @Test func theBodyAfterAPassedHeadIsIgnored() {
        var screen = RequestHeadScreen(maxBodySize: 100)
        #expect(screen.feed(Array("POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\n".utf8)) == .passed)
        #expect(screen.feed(Array("\n\n\r x".utf8)) == .passed)
    }

    @Test func aContentLengthAtTheLimitPasses() {
        #expect(Self.verdict("POST / HTTP/1.1\r\nContent-Length: 1024\r\n\r\n") == .passed)
        #expect(Self.verdict("POST / HTTP/1.1\r\nContent-Length: 0000000000000000000000001\r\n\r\n") == .passed,
                "leading zeros do not make a length large")
    }

    @Test func eachViolationAnswers400Except413ForATooLargeBody() {
        func error(_ violation: RequestHeadScreen.Violation) -> JPushError {
            JPushRejection.error(for: violation.rejection(maxBodySize: 1))
        }
        #expect(error(.contentLengthTooLarge).status == 413)
        #expect(error(.conflictingContentLength).status == 400)
        #expect(error(.bareLineEnding).code == 1003)
    }
}
