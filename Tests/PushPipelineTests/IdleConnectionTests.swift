import Foundation
import Glibc
import Testing
import TestSupport

/// Hostile clients against a `pushrelay serve` process: many idle connections held by
/// another process (scripts/hold-connections.py, so that the two ends do not share one
/// open-file limit) and a slowloris trickling its headers. Meanwhile /healthz and
/// authenticated pushes are answered promptly and delivered, and the relay's resident set
/// stays bounded. 10,000 idle connections and a byte a second under `make reliability`;
/// 1,500 and a byte every 200 ms against a 2 s deadline inside `make test`.
@Suite(.serialized) struct IdleConnectionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// How much the relay's resident set may grow while the connections are held.
    static let residentBound = 200 * 1_048_576

    @Test(.timeLimit(.minutes(5))) func idleConnectionsAndASlowlorisLeaveOthersServed() async throws {
        let idle = FaultReport.full ? 10_000 : 1_500
        let deadline = FaultReport.full ? 10 : 2
        let interval = FaultReport.full ? 1.0 : 0.2
        let pushes = 20
        let started = ContinuousClock.now
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: pushes, prefix: "c1")
            try await relay.pool.query("UPDATE devices SET alias = 'idle_' || id WHERE app_id = $1", [app.id])
            let aliases = try await relay.pool.query("SELECT alias FROM devices WHERE app_id = $1 ORDER BY id", [app.id])
                .compactMap { $0["alias"] }

            let port = try TestProcess.freePort()
            let base = "http://127.0.0.1:\(port)"
            var environment = relay.processEnvironment(port: port)
            environment["PUSHRELAY_HEADER_TIMEOUT_SECONDS"] = String(deadline)
            // All of them come from 127.0.0.1, like the test's own requests.
            environment["PUSHRELAY_MAX_CONNECTIONS_PER_ADDRESS"] = String(idle + 100)
            // The API alone: the harness's own worker (whose secret key sealed the app's
            // credential) sends what it accepts.
            let process = try await RelayProcess.start(arguments: ["serve", "--role", "api"], environment: environment, base: base)
            defer { RelayProcess.stop([process]) }
            let pid = process.processIdentifier
            let residentBefore = Self.resident(pid)

            let holder = try ScriptProcess(script: Self.root.appendingPathComponent("scripts/hold-connections.py").path,
                                           arguments: ["127.0.0.1", String(port), String(idle)])
            defer { holder.stop() }
            let held = try await holder.line()
            #expect(held == "held \(idle)", "the holder opened its connections: \(held)")

            // A slowloris on a thread of its own: a byte per interval until the relay hangs up.
            let slowloris = try TrickleClient(port: port)
            let trickle = Task.detached { slowloris.trickle(interval: interval, limit: .seconds(deadline * 3 + 10)) }

            var slowestHealth = Duration.zero
            for _ in 0..<20 {
                let begun = ContinuousClock.now
                let reply = try await relay.request("GET", "/healthz", base: base)
                #expect(reply.status == 200)
                slowestHealth = max(slowestHealth, ContinuousClock.now - begun)
            }
            var slowestPush = Duration.zero
            var messages: [Int64] = []
            for alias in aliases {
                let begun = ContinuousClock.now
                messages.append(try await relay.accepted(app, ["platform": "ios", "audience": ["alias": [alias]],
                                                               "notification": ["alert": "while held"]], base: base))
                slowestPush = max(slowestPush, ContinuousClock.now - begun)
            }
            try await poll(timeout: .seconds(60), "every push at the simulator") {
                Arrivals(relay.simulator.deliveries(), tokens: tokens).delivered == pushes ? true : nil
            }
            let residentHeld = Self.resident(pid)
            holder.send("count")
            let open = try await holder.line()
            #expect(open == "open \(idle)", "every idle connection is still held (none refused): \(open)")
            let cutAfter = await trickle.value
            let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first ?? "?"

            let grown = residentHeld - residentBefore
            let cut = try #require(cutAfter, "the slowloris was never cut off")
            #expect(cut >= .seconds(deadline) - .milliseconds(300) && cut <= .seconds(deadline) + .seconds(interval) + .seconds(5),
                    "the slowloris is cut at its \(deadline) s deadline: \(cut)")
            #expect(slowestHealth < .seconds(2), "/healthz answered promptly: slowest \(slowestHealth)")
            #expect(slowestPush < .seconds(3), "pushes accepted promptly: slowest \(slowestPush)")
            #expect(grown < Self.residentBound, "resident set grew \(grown / 1_048_576) MiB for \(idle) connections")
            let arrived = Arrivals(relay.simulator.deliveries(), tokens: tokens)
            #expect(arrived.collapsed == arrived.duplicates, "every copy of a duplicate carries one collapse id")
            let notes = "\(idle.formatted()) idle connections held by another process: relay RSS "
                + "\(residentBefore / 1_048_576) → \(residentHeld / 1_048_576) MiB (bound +\(Self.residentBound / 1_048_576) MiB); "
                + "slowest /healthz \(Self.milliseconds(slowestHealth)) ms, slowest push \(Self.milliseconds(slowestPush)) ms; "
                + "slowloris (a byte every \(interval) s) cut after \(String(format: "%.1f", Self.seconds(cut))) s, deadline \(deadline) s; load \(load)"
            print("idle connections: \(notes)")
            FaultReport.record("\(idle.formatted()) idle connections + slowloris", sent: pushes, delivered: arrived.delivered,
                               duplicates: arrived.duplicates, collapsed: arrived.collapsed, elapsed: ContinuousClock.now - started, notes: notes)
        }
    }

    /// VmRSS of a process, in bytes.
    static func resident(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func milliseconds(_ duration: Duration) -> Int { Int(seconds(duration) * 1000) }
}

/// A client sending a request's headers a byte at a time, never finishing them.
final class TrickleClient: @unchecked Sendable {
    private let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, result == 0 else {
            if fd >= 0 { close(fd) }
            throw HarnessError("connect: errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// Sends a byte per `interval` (blocking: run it off the concurrency pool) until the
    /// peer closes; returns how long after the first byte that was, nil if not within `limit`.
    func trickle(interval: Double, limit: Duration) -> Duration? {
        let header = Array("POST /v3/push HTTP/1.1\r\nHost: relay\r\nX-Slow: ".utf8) + [UInt8](repeating: UInt8(ascii: "s"), count: 100_000)
        let started = ContinuousClock.now
        for byte in header where ContinuousClock.now - started < limit {
            var peek: UInt8 = 0
            let count = recv(fd, &peek, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { return ContinuousClock.now - started }
            var value = byte
            _ = Glibc.send(fd, &value, 1, Int32(MSG_NOSIGNAL))
            Thread.sleep(forTimeInterval: interval)
        }
        return nil
    }
}
