import Foundation
import Testing
@testable import HTTPServer

/// Request-smuggling primitives over raw sockets: each is answered 400 (413 for a declared
/// body over the limit) in JPush JSON and the connection closed, and whatever followed it
/// on the connection is never handled. libevent alone accepts each of them.
@Suite struct RequestSmuggling {
    static let cases: [(name: String, raw: String, status: Int)] = [
        ("conflicting Content-Length",
         "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 41\r\n\r\nhelloGET /fast HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("obs-folded header", "GET /fast HTTP/1.1\r\nHost: t\r\nX-Folded: a\r\n b\r\n\r\n", 400),
        ("bare LF line endings", "GET /fast HTTP/1.1\nHost: t\n\n", 400),
        ("space before the colon",
         "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length : 36\r\n\r\nGET /fast HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("Transfer-Encoding identity then chunked",
         "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: identity\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 400),
        ("Content-Length of 20 digits", "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999999999999999\r\n\r\n", 413),
        ("Content-Length over the limit, body not sent", "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\n", 413),
    ]

    @Test(.timeLimit(.minutes(1)), arguments: cases.indices)
    func isRejectedAtOnceAndTheConnectionClosed(index: Int) async throws {
        let (name, raw, status) = Self.cases[index]
        let logs = LogCapture()
        let (server, port) = try startServer(testRouter(), logs: logs, requestReadTimeout: .seconds(10))
        let started = ContinuousClock.now
        let (reply, closed) = try await offPool {
            let connection = try RawConnection(port: port)
            try connection.send(raw)
            let reply = try connection.readResponse()
            return (reply, try connection.isClosedByPeer(leftover: 0))
        }
        let elapsed = ContinuousClock.now - started
        #expect(reply.status == status, "\(name): \(reply.status) \(reply.text)")
        #expect(reply.errorCode == (status == 413 ? 1005 : 1003), "\(name): \(reply.text)")
        #expect(reply.headers["Connection"] == "close", "\(name)")
        #expect(closed, "\(name): the connection is closed after the answer, nothing else answered")
        #expect(elapsed < .seconds(3), "\(name): answered at once, not at the 10 s deadline: \(elapsed)")
        #expect(!logs.requestLines.contains { $0["path"] == "/fast" || $0["path"] == "/echo" },
                "\(name): no handler ran")
        #expect(await eventually { server.openConnections == 0 }, "\(name): the connection is freed")
        await server.shutdown()
    }

    /// A well-formed request followed, in the same packet, by a smuggling attempt: the first
    /// is answered, the second refused, and the connection closed.
    @Test(.timeLimit(.minutes(1))) func aPipelinedAttemptAfterAGoodRequestIsRejected() async throws {
        let (server, port) = try startServer(testRouter())
        let replies = try await offPool {
            let connection = try RawConnection(port: port)
            try connection.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n"
                + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 38\r\n\r\n"
                + "abcGET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
            return ([try connection.readResponse(), try connection.readResponse()], try connection.isClosedByPeer(leftover: 0))
        }
        #expect(replies.0.map(\.status) == [200, 400])
        #expect(replies.1, "closed after the 400: the smuggled GET is never answered")
        await server.shutdown()
    }

    /// Over TLS-less keep-alive, a client that keeps sending after its rejection still reads
    /// the answer: the server drops its input rather than resetting the connection.
    @Test(.timeLimit(.minutes(1))) func aRejectedClientStillSendingReadsItsAnswer() async throws {
        let (server, port) = try startServer(testRouter(), maxBodySize: 1024)
        let reply = try await offPool {
            let connection = try RawConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 300000\r\n\r\n")
            try connection.send(String(repeating: "x", count: 300_000))
            return try connection.readResponse()
        }
        #expect(reply.status == 413)
        #expect(reply.errorCode == 1005)
        await server.shutdown()
    }
}
