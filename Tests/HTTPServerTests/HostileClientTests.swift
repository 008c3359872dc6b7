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
}
