import Foundation
import Glibc
import Testing
@testable import HTTPServer

/// Clients that hold connections without finishing requests: many idle connections, a
/// slowloris trickling its headers, a body declared larger than sent, pipelined garbage.
/// The server keeps answering everyone else and its memory stays bounded.
/// `PUSHRELAY_IDLE_CONNECTIONS` sets the idle count (default 2,000; `make reliability` 10,000).
@Suite struct HostileClientTests {
    static let idle = ProcessInfo.processInfo.environment["PUSHRELAY_IDLE_CONNECTIONS"].flatMap(Int.init) ?? 2_000
    /// `make reliability`: a true slowloris (a byte a second against the default 10 s deadline).
    static let full = ProcessInfo.processInfo.environment["PUSHRELAY_RELIABILITY_FULL"] == "1"

    /// This process's resident set, from /proc (the server runs in it).
    static func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    @Test(.timeLimit(.minutes(3))) func othersAreAnsweredAndMemoryStaysBounded() async throws {
        let (server, port) = try startServer(testRouter())
        let before = Self.residentBytes()
        let idle = try await offPool { try (0..<Self.idle).map { _ in try RawConnection(port: port) } }
        // Half of them sent part of a request line and stopped.
        for connection in idle.prefix(Self.idle / 2) { try connection.send("GET /fa") }

        let declaredLarger = try RawConnection(port: port)
        try declaredLarger.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n0123456789")

        let slowloris = try RawConnection(port: port)
        let header = Array("GET /fast HTTP/1.1\r\nHost: t\r\nX-Slow: \(String(repeating: "s", count: 200))".utf8)
        let trickle = Task.detached {
            for byte in header {
                try? slowloris.send([byte])
                try? await Task.sleep(for: .milliseconds(10))
            }
        }

        let garbage = try RawConnection(port: port)
        try garbage.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n\u{1}\u{2}GARBAGE \u{7f}\r\n\r\nGET /fast HTTP/1.1\r\n\r\n")
        let first = try await offPool { try garbage.readResponse() }
        #expect(first.status == 200, "the well-formed request before the garbage is answered")

        // Everyone else is answered while all of that is held open.
        for _ in 0..<50 {
            let reply = try await exchange(port: port, "GET /fast HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            #expect(reply.status == 200)
        }
        let grown = Self.residentBytes() - before
        print("hostile clients: \(Self.idle) idle connections, resident set grew \(grown / 1_048_576) MiB")
        #expect(grown < 200 * 1_048_576, "memory stays bounded: grew \(grown) bytes for \(Self.idle) idle connections")

        await trickle.value
        withExtendedLifetime(idle) {}
        await server.shutdown()
    }

    /// A client trickling its headers (a byte a second under `make reliability`, every
    /// 100 ms against a 2 s deadline in `make test`) is cut off once the request deadline
    /// passes, counted from its first byte, although every byte restarts libevent's read
    /// timeout; meanwhile other clients are answered at once.
    @Test(.timeLimit(.minutes(2))) func aTricklingClientIsCutAtTheDeadlineWhileOthersAreServed() async throws {
        let deadline: Duration = Self.full ? .seconds(10) : .seconds(2)
        let interval = Self.full ? 1.0 : 0.1
        let (server, port) = try startServer(testRouter(), requestReadTimeout: deadline)
        let slowloris = try RawConnection(port: port)
        let header = Array("GET /fast HTTP/1.1\r\nHost: t\r\nX-Slow: \(String(repeating: "s", count: 1_000))".utf8)

        async let cut: Duration? = offPool {
            let started = ContinuousClock.now
            for byte in header {
                if slowloris.peerHasClosed() { return ContinuousClock.now - started }
                try? slowloris.send([byte])
                Thread.sleep(forTimeInterval: interval)
            }
            return nil
        }
        // Others, one after another, while the trickle runs.
        var slowest = Duration.zero
        var answered = 0
        let until = ContinuousClock.now + deadline
        while ContinuousClock.now < until {
            let started = ContinuousClock.now
            let reply = try await exchange(port: port, "GET /fast HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            #expect(reply.status == 200)
            slowest = max(slowest, ContinuousClock.now - started)
            answered += 1
            try await Task.sleep(for: .milliseconds(100))
        }
        let cutAfter = try await cut
        print("slowloris: cut after \(cutAfter.map { "\($0)" } ?? "never") (deadline \(deadline)); \(answered) others answered, slowest \(slowest)")
        let after = try #require(cutAfter, "the trickling connection was never closed")
        #expect(after >= deadline - .milliseconds(300), "not cut before its deadline: \(after)")
        #expect(after <= deadline + .seconds(interval) + .seconds(3), "cut soon after its deadline: \(after)")
        #expect(answered >= 3 && slowest < .seconds(2), "others answered at once meanwhile")
        await server.shutdown()
    }

    /// With a cap of 5 connections the sixth is answered 503 (code 1030) and closed at
    /// once; after one of the five closes, a new connection is served; and the count goes
    /// back to zero when all have closed (every close is counted).
    @Test(.timeLimit(.minutes(1))) func theConnectionCapRefusesOneMoreAndAcceptsAgainAfterOneCloses() async throws {
        let cap = 5
        let (server, port) = try startServer(testRouter(), maxConnections: cap)
        var held = try (0..<cap).map { _ in try RawConnection(port: port) }
        #expect(await eventually { server.openConnections == cap })

        let refused = try await offPool {
            let connection = try RawConnection(port: port)
            let reply = try connection.readResponse()
            return (reply, try connection.isClosedByPeer(leftover: 0))
        }
        #expect(refused.0.status == 503)
        #expect(refused.0.errorCode == 1030)
        #expect(refused.1, "the refused connection is closed")
        #expect(server.openConnections == cap, "a refused connection is not counted")

        held.removeLast().hangUp()
        #expect(await eventually { server.openConnections == cap - 1 })
        let served = try await exchange(port: port, "GET /fast HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(served.status == 200, "accepted again once one closed")

        for connection in held { connection.hangUp() }
        #expect(await eventually { server.openConnections == 0 }, "\(server.openConnections) still counted")
        withExtendedLifetime(held) {}
        await server.shutdown()
    }

    /// A client pipelining requests without reading the answers is not read any further
    /// while its answer waits: the server's buffered input stays at about one request and
    /// its buffered output at one answer, however much the client tries to send (without
    /// the bound, libevent reads all of it into memory).
    @Test(.timeLimit(.minutes(1))) func aClientPipeliningWithoutReadingIsNotReadFurther() async throws {
        let (server, port) = try startServer(testRouter())
        var client: RawConnection? = try RawConnection(port: port, receiveBuffer: 4096)
        let request = Array("GET /big HTTP/1.1\r\nHost: t\r\nX-Pad: \(String(repeating: "p", count: 4000))\r\n\r\n".utf8)
        let sent = try await offPool { [client] in client!.sendUntilBlocked(request, limit: 64 << 20, stall: .seconds(1)) }
        let input = server.bufferedInputBytes, output = server.bufferedOutputBytes
        print("non-reading pipeliner: sent \(sent / 1024) KiB; server buffers \(input / 1024) KiB in, \(output / 1024) KiB out")
        #expect(sent < 32 << 20, "the client's sends stall: \(sent) bytes taken")
        #expect(input < 256 * 1024, "input buffered for the connection stays small: \(input) bytes")
        #expect(output <= bigBody.count + 1024, "one answer at most is buffered: \(output) bytes")
        client = nil  // closed with unread bytes: a reset, which fails the server's write
        #expect(await eventually { server.openConnections == 0 && server.bufferedInputBytes == 0 && server.bufferedOutputBytes == 0 },
                "freed buffers are uncounted: \(server.bufferedInputBytes) in, \(server.bufferedOutputBytes) out")
        await server.shutdown()
    }

    /// A connection is closed after `maxRequestsPerConnection` answers, the last saying
    /// `Connection: close`: requests pipelined past it are never handled, so a client that
    /// does not read its answers (which both kernels buffer by the thousand) makes the server
    /// handle that many requests per connection at most.
    @Test(.timeLimit(.minutes(1))) func aConnectionIsClosedAfterItsShareOfRequests() async throws {
        let (server, port) = try startServer(testRouter(), maxRequestsPerConnection: 5)
        let answers = try await offPool {
            let connection = try RawConnection(port: port)
            try connection.send(String(repeating: "GET /fast HTTP/1.1\r\nHost: t\r\n\r\n", count: 8))
            let answers = try (0..<5).map { _ in try connection.readResponse() }
            return (answers, try connection.isClosedByPeer(leftover: 0))
        }
        #expect(answers.0.map(\.status) == Array(repeating: 200, count: 5))
        #expect(answers.0.dropLast().allSatisfy { $0.headers["Connection"] != "close" }, "the first four keep the connection")
        #expect(answers.0.last?.headers["Connection"] == "close", "the fifth says it is the last")
        #expect(answers.1, "the server closes after the fifth answer, the three pipelined requests unanswered")
        #expect(try await get(port: port, "/fast").status == 200, "a new connection is served")
        await server.shutdown()
    }

    /// Once the answers waiting for non-reading clients exceed `maxBufferedOutput` over all
    /// connections, further requests are answered 503 (code 1030) without running their
    /// handler; when those clients go, requests are served again.
    @Test(.timeLimit(.minutes(1))) func answersBufferedOverTheGlobalBoundTurnNewRequestsAway() async throws {
        let bound = 1 << 20
        let (server, port) = try startServer(testRouter(), maxBufferedOutput: bound)
        var stalled: RawConnection? = try RawConnection(port: port, receiveBuffer: 4096)
        try stalled?.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(await eventually { server.bufferedOutputBytes > bound }, "an unread answer exceeds the bound: \(server.bufferedOutputBytes)")
        let refused = try await get(port: port, "/fast", headers: "Connection: close\r\n")
        #expect(refused.status == 503)
        #expect(refused.errorCode == 1030)
        stalled = nil  // closed with unread bytes: a reset
        #expect(await eventually { server.bufferedOutputBytes == 0 }, "\(server.bufferedOutputBytes) still counted")
        let served = try await get(port: port, "/fast", headers: "Connection: close\r\n")
        #expect(served.status == 200)
        await server.shutdown()
    }

    /// One address holding its cap of connections is refused one more (503, code 1030),
    /// while another address connects and is served.
    @Test(.timeLimit(.minutes(1))) func theCapPerAddressRefusesOneAddressAndAdmitsAnother() async throws {
        let (server, port) = try startServer(testRouter(), maxConnections: 100, maxConnectionsPerAddress: 5)
        let held = try (0..<5).map { _ in try RawConnection(port: port) }
        #expect(await eventually { server.openConnections == 5 })
        let refused = try await offPool {
            let connection = try RawConnection(port: port)
            return (try connection.readResponse(), try connection.isClosedByPeer(leftover: 0))
        }
        #expect(refused.0.status == 503)
        #expect(refused.0.errorCode == 1030)
        #expect(refused.0.text.contains("from this address"))
        #expect(refused.1)
        let other = try await offPool {
            let connection = try RawConnection(port: port, source: "127.0.0.2")
            try connection.send("GET /fast HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(other.status == 200, "another address is served")
        withExtendedLifetime(held) {}
        await server.shutdown()
    }

    /// With the server at its cap, all of it held idle by one address, a client from another
    /// address is served: an idle connection of the heavy address is closed for it, and the
    /// heavy address gets no new one while it holds more than its share.
    @Test(.timeLimit(.minutes(1))) func atTheCapAnotherAddressDisplacesAnIdleConnectionOfTheHeaviest() async throws {
        let cap = 10
        let (server, port) = try startServer(testRouter(), threads: 1, maxConnections: cap)
        let held = try (0..<cap).map { _ in try RawConnection(port: port) }
        #expect(await eventually { server.openConnections == cap })
        let newcomer = try RawConnection(port: port, source: "127.0.0.2")
        let other = try await offPool {
            try newcomer.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
            return try newcomer.readResponse()
        }
        #expect(other.status == 200, "the newcomer is served")
        #expect(await eventually { held.filter { $0.peerHasClosed() }.count == 1 }, "one idle connection of the heavy address was closed")
        let heavyAgain = try await offPool {
            let connection = try RawConnection(port: port)
            return try connection.readResponse()
        }
        #expect(heavyAgain.status == 503, "the heavy address, over its share, gets no more")
        withExtendedLifetime((held, newcomer)) {}
        await server.shutdown()
    }
}
