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
}
