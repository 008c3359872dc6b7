import APNSSimulator
import Foundation
import Testing
import TestSupport

/// The simulated network over real TLS sockets, driven by `h2load`: jitter spreads the
/// answer times (answers overtaking one another on one connection), the bandwidth cap
/// slows a connection to its rate, and `PUT /network` changes both while running.
@Suite(.serialized) struct SimulatorNetworkTests {
    /// h2load's "time for request" min and max, in seconds.
    static func requestTimes(_ output: String) -> (min: Double, max: Double)? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("time for request:") }) else { return nil }
        let fields = line.split(separator: " ").dropFirst(3).prefix(2).compactMap(seconds)
        return fields.count == 2 ? (fields[0], fields[1]) : nil
    }

    private static func seconds(_ field: Substring) -> Double? {
        for (unit, scale) in [("us", 1e-6), ("ms", 1e-3), ("s", 1.0)] where field.hasSuffix(unit) {
            return Double(field.dropLast(unit.count)).map { $0 * scale }
        }
        return nil
    }

    static func h2load(_ running: SimulatorIntegrationTests.Running, requests: Int, payload: String? = nil) async throws -> String {
        try await ExternalTool.run("/usr/bin/h2load", [
            "-n", String(requests), "-c", "1", "-m", String(requests), "-H", "apns-topic: com.example",
            "-d", payload ?? running.payloadPath, running.url(),
        ]).output
    }

    /// 300 ± 290 ms: 500 requests sent together on one connection are answered anywhere
    /// from 10 to 590 ms later, so the later-sent overtake the earlier, as on a real
    /// network. Without jitter none could come back before 300 ms.
    @Test func jitterSpreadsAnswerTimesAroundTheLatency() async throws {
        try await SimulatorIntegrationTests.withSimulator({ $0.latencyMilliseconds = 300; $0.latencyJitterMilliseconds = 290 }) { running in
            let output = try await Self.h2load(running, requests: 500)
            #expect(output.contains("status codes: 500 2xx"), "\(output)")
            let times = try #require(Self.requestTimes(output), "\(output)")
            #expect(times.min >= 0.01 && times.min < 0.2, "the earliest answer: \(times.min) s\n\(output)")
            #expect(times.max > 0.45 && times.max < 1.5, "the latest answer: \(times.max) s\n\(output)")
        }
    }

    /// A 40,000 B/s pipe: 40 requests of 3 KB each (120 KB in) need about 3 s to be read,
    /// less the first burst; without the cap they take milliseconds.
    @Test func bandwidthCapSlowsAConnectionToItsRate() async throws {
        try await SimulatorIntegrationTests.withSimulator({ $0.bandwidthBytesPerSecond = 40_000 }) { running in
            let payload = running.directory.appendingPathComponent("big.json").path
            try #"{"aps":{"alert":"\#(String(repeating: "x", count: 3_000))"}}"#.write(toFile: payload, atomically: true, encoding: .utf8)
            let started = Date()
            let output = try await Self.h2load(running, requests: 40, payload: payload)
            let elapsed = Date().timeIntervalSince(started)
            #expect(output.contains("status codes: 40 2xx"), "\(output)")
            #expect(elapsed > 2.2, "120 KB through 40,000 B/s in \(elapsed) s")
            #expect(elapsed < 12, "\(elapsed) s")
        }
    }

    /// `PUT /network` sets latency and jitter of a running simulator, `GET /network` reads
    /// them back, a bad body is refused with 400; `{}` clears them all.
    @Test func networkChangesWhileRunningThroughTheControlEndpoint() async throws {
        try await SimulatorIntegrationTests.withSimulator { running in
            let base = "http://127.0.0.1:\(running.controlPort)/network"
            let put = { (body: String) async throws -> String in
                try await ExternalTool.run("/usr/bin/curl", ["-sS", "-X", "PUT", "-d", body, "-w", " %{http_code}", base]).output
            }
            #expect(try await put(#"{"latency_ms":200,"latency_jitter_ms":10}"#).hasSuffix(" 200"))
            #expect(try await running.control("/network")["latency_ms"] as? Int == 200)
            #expect(running.simulator.network == NetworkShape(latencyMilliseconds: 200, jitterMilliseconds: 10))
            let slow = try #require(Self.requestTimes(try await Self.h2load(running, requests: 50)))
            #expect(slow.min >= 0.19 && slow.max < 0.7, "\(slow)")

            #expect(try await put(#"{"latency_ms":-3}"#).hasSuffix(" 400"))
            #expect(running.simulator.network.latencyMilliseconds == 200, "a refused body changes nothing")

            #expect(try await put("{}").hasSuffix(" 200"))
            let fast = try #require(Self.requestTimes(try await Self.h2load(running, requests: 50)))
            #expect(fast.max < 0.15, "\(fast)")
        }
    }
}
