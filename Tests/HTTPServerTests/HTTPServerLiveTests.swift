import Foundation
import HTTPServer
import RelayCore
import Testing

/// Real sockets on 127.0.0.1, ephemeral ports.
@Suite("HTTPServer live", .serialized)
struct HTTPServerLiveTests {
    @Test("answers a request and echoes a valid X-Request-Id, replacing an invalid one")
    func requestIDs() async throws {
        let (server, port) = try startServer(testRouter())
        let echoed = try await get(port: port, "/fast", headers: "X-Request-Id: abc-123\r\n")
        #expect(echoed.status == 200)
        #expect(echoed.text == "fast")
        #expect(echoed.headers["x-request-id"] == "abc-123")
        #expect(echoed.headers["Content-Type"] == "text/plain")

        let replaced = try await get(port: port, "/id", headers: "X-Request-Id: not valid!\r\n")
        let id = try #require(replaced.headers["X-Request-Id"])
        #expect(id != "not valid!")
        #expect(RequestID.isValid(id))
        #expect(replaced.text == "{\"id\":\"\(id)\"}")
        #expect(replaced.headers["Content-Type"] == "application/json")

        let missing = try await get(port: port, "/nowhere")
        #expect(missing.status == 404)
        #expect(missing.errorCode == 7010)
        #expect(missing.headers["X-Request-Id"] != nil)
        await server.shutdown()
    }

    @Test("a slow handler does not delay a fast request on the same loop")
    func slowHandlerDoesNotBlockLoop() async throws {
        let entered = Gate(), release = Gate()
        let (server, port) = try startServer(testRouter(entered: entered, release: release), threads: 1)
        let slow = try await offPool {
            let connection = try RawConnection(port: port)
            try connection.send("GET /slow HTTP/1.1\r\nHost: test\r\n\r\n")
            return connection
        }
        await entered.wait()
        let fast = try await get(port: port, "/fast")
        #expect(fast.status == 200)
        #expect(fast.text == "fast")
        #expect(!release.isOpen)  // answered while the slow handler was still waiting
        release.open()
        let slowResponse = try await offPool { try slow.readResponse() }
        #expect(slowResponse.status == 200)
        #expect(slowResponse.text == "slow")
        await server.shutdown()
    }

    @Test("clients hanging up before their reply do not disturb the server")
    func clientHangsUp() async throws {
        let entered = Gate(), release = Gate()
        let logs = LogCapture()
        let (server, port) = try startServer(testRouter(entered: entered, release: release), logs: logs, threads: 1)
        try await offPool {
            let connection = try RawConnection(port: port)
            try connection.send("GET /slow HTTP/1.1\r\nHost: test\r\n\r\n")
            connection.hangUp()
        }
        await entered.wait()
        release.open()
        for _ in 0..<20 {
            try await offPool {
                let connection = try RawConnection(port: port)
                try connection.send("GET /fast HTTP/1.1\r\nHost: test\r\n\r\n")
                connection.hangUp()
            }
        }
        #expect(await eventually { logs.requestLines.contains { $0["path"] == "/slow" } })
        let after = try await get(port: port, "/fast")
        #expect(after.status == 200)
        #expect(after.text == "fast")
        await server.shutdown()
    }

    @Test("a Content-Length body over the limit gets 413 in JPush JSON; one at the limit is served")
    func oversizedContentLength() async throws {
        let (server, port) = try startServer(testRouter(), maxBodySize: 1024)
        let atLimit = String(repeating: "a", count: 1024)
        let fine = try await exchange(port: port, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1024\r\n\r\n\(atLimit)")
        #expect(fine.status == 200)
        #expect(fine.body.count == 1024)

        let tooBig = String(repeating: "b", count: 4096)
        let rejected = try await exchange(port: port, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4096\r\n\r\n\(tooBig)")
        #expect(rejected.status == 413)
        #expect(rejected.headers["Content-Type"] == "application/json")
        #expect(rejected.errorCode == 1005)
        #expect(rejected.headers["X-Request-Id"] != nil)
        #expect(!rejected.text.contains("<HTML>"))
        await server.shutdown()
    }

    @Test("a chunked body growing past the limit gets 413 in JPush JSON; a small one is served")
    func oversizedChunked() async throws {
        let (server, port) = try startServer(testRouter(), maxBodySize: 1024)
        let chunk = String(repeating: "c", count: 512)
        let chunkFrame = "200\r\n\(chunk)\r\n"
        let head = "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"

        let fine = try await exchange(port: port, head + chunkFrame + "0\r\n\r\n")
        #expect(fine.status == 200)
        #expect(fine.text == chunk)

        let rejected = try await exchange(port: port, head + String(repeating: chunkFrame, count: 4) + "0\r\n\r\n")
        #expect(rejected.status == 413)
        #expect(rejected.errorCode == 1005)
        #expect(rejected.headers["Content-Type"] == "application/json")
        await server.shutdown()
    }

    @Test("Expect: 100-continue gets the interim response through untouched, then the reply")
    func expectContinue() async throws {
        let (server, port) = try startServer(testRouter(), maxBodySize: 1024)
        let (interim, final) = try await offPool {
            let connection = try RawConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            let interim = try connection.readResponse()
            try connection.send("hello")
            return (interim, try connection.readResponse())
        }
        #expect(interim.status == 100)
        #expect(final.status == 200)
        #expect(final.text == "hello")
        await server.shutdown()
    }

    @Test("HEAD is answered by the GET route without a body")
    func head() async throws {
        let (server, port) = try startServer(testRouter())
        let (response, closedAfterHead) = try await offPool {
            let connection = try RawConnection(port: port)
            try connection.send("HEAD /fast HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            let response = try connection.readResponse(toHead: true)
            return (response, try connection.isClosedByPeer(leftover: 0))
        }
        #expect(response.status == 200)
        #expect(response.headers["Content-Length"] == "4")
        #expect(closedAfterHead)  // nothing followed the head
        await server.shutdown()
    }

    @Test("malformed targets and requests get 400 in JPush JSON")
    func malformedRequests() async throws {
        let (server, port) = try startServer(testRouter())
        let badEscape = try await get(port: port, "/fast%zz")
        #expect(badEscape.status == 400)
        #expect(badEscape.errorCode == 1003)

        let badQuery = try await get(port: port, "/fast?x=%E2%82")
        #expect(badQuery.status == 400)
        #expect(badQuery.errorCode == 1003)

        let garbage = try await exchange(port: port, "GARBAGE\r\n\r\n")
        #expect(garbage.status == 400)
        #expect(garbage.errorCode == 1003)
        #expect(garbage.headers["Content-Type"] == "application/json")

        for method in ["TRACE", "CONNECT", "PROPFIND"] {
            let odd = try await exchange(port: port, "\(method) /fast HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(odd.status == 405 || odd.status == 501 || odd.status == 400, "\(method)")
            #expect(odd.errorCode != nil, "\(method) is answered in JPush JSON, got \(odd.status) \(odd.body)")
        }

        let stillServing = try await get(port: port, "/fast")
        #expect(stillServing.status == 200)
        await server.shutdown()
    }

    @Test("every page libevent writes itself becomes one JSON response with nothing after it, connection after connection")
    func rejectedByLibevent() async throws {
        // One loop, so one thread's allocator hands a closed connection's buffers to the next.
        let (server, port) = try startServer(testRouter(), threads: 1, maxBodySize: 1024)
        let get = "GET /fast HTTP/1.1\r\nHost: test\r\n\r\n"
        let closing = [
            (405, "PROPFIND /fast HTTP/1.1\r\nHost: test\r\n\r\n"),
            (400, "GARBAGE\r\n\r\n"),
            (413, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2048\r\n\r\n" + String(repeating: "b", count: 2048)),
        ]
        for round in 0..<20 {
            // libevent's 501 (sent as 405) to CONNECT has no Content-Length and keeps the connection open:
            // each next response on it must start right after the JSON.
            let connect = "CONNECT /fast HTTP/1.1\r\nHost: test\r\n\r\n"
            let onOneConnection = try await offPool {
                let connection = try RawConnection(port: port)
                return try [connect, connect, get].map { request in
                    try connection.send(request)
                    return try connection.readResponse()
                }
            }
            #expect(onOneConnection.map(\.status) == [405, 405, 200], "round \(round)")
            #expect(onOneConnection.map(\.errorCode) == [1001, 1001, nil], "round \(round)")
            #expect(onOneConnection.last?.text == "fast", "round \(round)")

            for (status, request) in closing {
                // Odd rounds reject the second request of a keep-alive connection.
                let before = round % 2 == 1 ? [get] : []
                let (responses, nothingAfter) = try await offPool {
                    let connection = try RawConnection(port: port)
                    let responses = try (before + [request]).map { request in
                        try connection.send(request)
                        return try connection.readResponse()
                    }
                    return (responses, try connection.isClosedByPeer(leftover: 0))
                }
                let response = try #require(responses.last)
                let label = "round \(round): \(request.prefix(8)) got \(response.status) \(response.text)"
                #expect(responses.dropLast().allSatisfy { $0.status == 200 }, "\(label)")
                #expect(response.status == status, "\(label)")
                #expect(response.errorCode != nil, "\(label)")
                #expect(response.headers["Content-Type"] == "application/json", "\(label)")
                #expect(response.headers["X-Request-Id"] != nil, "\(label)")
                #expect(nothingAfter, "\(label): bytes followed the JSON reply")
            }
        }
        await server.shutdown()
    }

    @Test("past maxRequestsInFlight a request is answered 503 code 1030 at once")
    func inFlightLimit() async throws {
        let entered = Gate(), release = Gate()
        let (server, port) = try startServer(testRouter(entered: entered, release: release), maxRequestsInFlight: 1)
        let slow = try await offPool {
            let connection = try RawConnection(port: port)
            try connection.send("GET /slow HTTP/1.1\r\nHost: test\r\n\r\n")
            return connection
        }
        await entered.wait()
        let busy = try await get(port: port, "/fast")
        #expect(busy.status == 503)
        #expect(busy.errorCode == 1030)
        release.open()
        #expect(try await offPool { try slow.readResponse() }.status == 200)
        #expect(try await get(port: port, "/fast").status == 200)
        await server.shutdown()
    }

    @Test("shutdown refuses new connections but finishes the reply in flight")
    func gracefulShutdown() async throws {
        let entered = Gate(), release = Gate()
        let (server, port) = try startServer(testRouter(entered: entered, release: release))
        let slow = try await offPool {
            let connection = try RawConnection(port: port)
            try connection.send("GET /slow HTTP/1.1\r\nHost: test\r\n\r\n")
            return connection
        }
        await entered.wait()
        let stopping = Task { await server.shutdown() }
        let refused = try await eventually {
            try await offPool { (try? RawConnection(port: port)) == nil }
        }
        #expect(refused)
        release.open()
        let response = try await offPool { try slow.readResponse() }
        #expect(response.status == 200)
        #expect(response.text == "slow")
        await stopping.value
    }

    @Test("start throws addressInUse when another socket holds the port")
    func addressInUse() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: port, threads: 1), responder: testRouter(),
            logger: LogCapture().logger)
        #expect(throws: HTTPServerError.addressInUse(host: "127.0.0.1", port: port)) { try server.start() }
    }

    @Test("each request is logged once with method, path, status, duration and id, never body or credentials")
    func accessLog() async throws {
        let logs = LogCapture()
        let (server, port) = try startServer(testRouter(), logs: logs)
        let response = try await exchange(
            port: port,
            "POST /echo?k=v HTTP/1.1\r\nHost: t\r\nAuthorization: Basic c2VjcmV0LXRva2Vu\r\nX-Request-Id: log-1\r\nContent-Length: 11\r\n\r\nsecret-body")
        #expect(response.status == 200)
        #expect(await eventually { logs.requestLines.contains { $0["request_id"] == "log-1" } })
        let lines = logs.requestLines.filter { $0["request_id"] == "log-1" }
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line["method"] == "POST")
        #expect(line["path"] == "/echo")
        #expect(line["status"] == "200")
        #expect(line["level"] == "info")
        #expect(Double(line["duration_ms"] ?? "") != nil)
        #expect(!logs.all.contains { $0.contains("secret") || $0.contains("c2VjcmV0LXRva2Vu") })
        await server.shutdown()
    }

    @Test("concurrent requests over several loops each get their own reply back")
    func concurrentRequests() async throws {
        let (server, port) = try startServer(testRouter(), threads: 2)
        let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<40 {
                group.addTask {
                    let body = "payload-\(index)-" + String(repeating: "x", count: index * 37)
                    let response = try await exchange(
                        port: port, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                    return (index, response.status == 200 && response.text == body ? "ok" : "bad \(response.status)")
                }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(bodies.count == 40)
        #expect(bodies.values.allSatisfy { $0 == "ok" })
        await server.shutdown()
    }

    @Test("several loops share the port and keep-alive connections serve many requests")
    func severalLoops() async throws {
        let (server, port) = try startServer(testRouter(), threads: 3)
        for _ in 0..<15 {
            #expect(try await get(port: port, "/fast").status == 200)
        }
        let statuses = try await offPool {
            let connection = try RawConnection(port: port)
            return try (0..<10).map { _ in
                try connection.send("GET /fast HTTP/1.1\r\nHost: test\r\n\r\n")
                return try connection.readResponse().status
            }
        }
        #expect(statuses == Array(repeating: 200, count: 10))
        await server.shutdown()
    }
}
