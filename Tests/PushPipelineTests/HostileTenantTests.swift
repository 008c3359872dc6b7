import Foundation
import Testing
import TestSupport

/// Issue 22's hostile tenant: one app, with valid credentials, sends deeply nested JSON,
/// collapse ids with control characters and wrong secrets, and holds connections that
/// pipeline requests without reading the answers (scripts/hostile-tenant.py, a process of its
/// own as an attacker is), against a `pushrelay serve --role api` process; meanwhile another
/// app's single-user pushes, sent one at a time, keep their p99 (acceptance to arrival at the
/// simulator) within twice the p99 measured without the attack, and every one of them is
/// delivered once. Quiet and attacked phases alternate, so a change in the shared machine's
/// speed falls on both, after a few pushes that open the connections. 200 pushes a phase and 50 non-reading connections under
/// `make reliability`, 100 and 10 inside `make test` (the p99 of 100 is the second slowest, not one spike).
@Suite(.serialized) struct HostileTenantTests {
    /// Below this, twice the baseline is inside the scheduling noise of a shared 2-core box.
    static let baselineFloor = Duration.milliseconds(20)
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(.timeLimit(.minutes(10))) func anotherAppsTargetedPushesStayFastWhileOneAppAttacks() async throws {
        let pushes = FaultReport.full ? 200 : 100
        let nonReading = FaultReport.full ? 50 : 10
        let rounds = 2, warmUp = 5
        let started = ContinuousClock.now
        try await PipelineHarness.with { relay in
            let victim = try await relay.createApp("victim")
            let hostile = try await relay.createApp("hostile")
            let tokens = try await relay.insertDevices(victim, count: warmUp + 2 * pushes, prefix: "e1")
            try await relay.pool.query("UPDATE devices SET alias = 'v_' || id WHERE app_id = $1", [victim.id])
            let targets = try await relay.pool.query("SELECT alias, token FROM devices WHERE app_id = $1 ORDER BY id", [victim.id])
                .compactMap { row in row["alias"].flatMap { alias in row["token"].map { (alias: alias, token: $0) } } }
            try await relay.insertDevices(hostile, count: 10, prefix: "e2")
            try await relay.pool.query("""
                UPDATE devices d SET alias = 'h_' || r.n
                FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM devices WHERE app_id = $1) r WHERE d.id = r.id
                """, [hostile.id])

            let port = try TestProcess.freePort()
            let base = "http://127.0.0.1:\(port)"
            // The API alone: the harness's own worker sends what it accepts.
            let process = try await RelayProcess.start(
                arguments: ["serve", "--role", "api"], environment: relay.processEnvironment(port: port), base: base)
            defer { RelayProcess.stop([process]) }

            // Not measured: the first pushes open the connections (API, PostgreSQL, APNs).
            _ = try await Self.latencies(relay, victim, Array(targets.prefix(warmUp)), base: base)
            var quiet = Phase(), attacked = Phase()
            var tally = HostileTally()
            let share = pushes / rounds
            for round in 0..<rounds {
                let slice = targets.dropFirst(warmUp + 2 * share * round)
                try await quiet.measure(process.processIdentifier) {
                    try await Self.latencies(relay, victim, Array(slice.prefix(share)), base: base)
                }
                let attacker = try ScriptProcess(script: Self.root.appendingPathComponent("scripts/hostile-tenant.py").path,
                                                 arguments: ["127.0.0.1", String(port), hostile.key, hostile.secret, String(nonReading)])
                defer { attacker.stop() }
                let underWay = try await attacker.line()
                try #require(underWay == "under way", "the attacker started: \(underWay)")
                try await attacked.measure(process.processIdentifier) {
                    try await Self.latencies(relay, victim, Array(slice.dropFirst(share).prefix(share)), base: base)
                }
                attacker.closeInput()
                tally.add(try await attacker.line())
            }

            let arrived = Arrivals(relay.simulator.deliveries(), tokens: tokens)
            let before = Self.p99(quiet.latencies), after = Self.p99(attacked.latencies)
            let bound = max(before, Self.baselineFloor) * 2
            let notes = "victim p99 \(Self.milliseconds(before)) ms quiet → \(Self.milliseconds(after)) ms under attack "
                + "(bound \(Self.milliseconds(bound)) ms, \(pushes) pushes each, \(rounds) rounds); the API's CPU "
                + "\(quiet.cpuShare) quiet, \(attacked.cpuShare) attacked; hostile: \(tally.summary), "
                + "\(nonReading) non-reading pipelining connections"
            print("hostile tenant: \(notes)")
            #expect(after <= bound, "the victim's p99 stays within 2× of its quiet p99: \(notes)")
            #expect(arrived.delivered == tokens.count && arrived.duplicates == 0, "every victim push delivered once: \(arrived)")
            #expect(tally.serverErrors == 0, "no hostile request got a 5xx: \(tally.summary)")
            #expect(tally.kinds.count == 3, "every kind of request was sent: \(tally.summary)")
            FaultReport.record("hostile tenant", sent: tokens.count, delivered: arrived.delivered, duplicates: arrived.duplicates,
                               collapsed: arrived.collapsed,
                               elapsed: ContinuousClock.now - started, notes: notes)
        }
    }

    /// Single-user pushes to each target's alias, one at a time, each timed from its request
    /// until the simulator has it.
    static func latencies(_ relay: PipelineHarness, _ app: PipelineHarness.App, _ targets: [(alias: String, token: String)],
                          base: String) async throws -> [Duration] {
        var latencies: [Duration] = []
        for target in targets {
            let begun = ContinuousClock.now
            _ = try await relay.accepted(app, ["platform": "ios", "audience": ["alias": [target.alias]],
                                               "notification": ["alert": "your trade filled"]], base: base)
            try await poll(timeout: .seconds(30), interval: .milliseconds(1), "the push at the simulator") {
                relay.simulator.deliveries(token: target.token).isEmpty ? nil : true
            }
            latencies.append(ContinuousClock.now - begun)
            try await Task.sleep(for: .milliseconds(10))
        }
        return latencies
    }

    static func p99(_ samples: [Duration]) -> Duration {
        let sorted = samples.sorted()
        return sorted.isEmpty ? .zero : sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }
}

/// The victim's latencies in one kind of phase, and the CPU the API process spent in it.
struct Phase {
    var latencies: [Duration] = []
    var cpuTicks = 0
    var elapsed = Duration.zero

    mutating func measure(_ pid: Int32, _ body: () async throws -> [Duration]) async throws {
        let ticks = Self.cpuTicks(pid), begun = ContinuousClock.now
        latencies += try await body()
        elapsed += ContinuousClock.now - begun
        cpuTicks += Self.cpuTicks(pid) - ticks
    }

    /// The API process's CPU time over the phase's wall time, from /proc (100 ticks a second).
    var cpuShare: String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return String(format: "%.0f%% of a core", seconds > 0 ? Double(cpuTicks) / seconds : 0)
    }

    /// utime + stime of a process, fields 14 and 15 of /proc/PID/stat (after the command's parentheses).
    static func cpuTicks(_ pid: Int32) -> Int {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 12 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
    }
}

/// What scripts/hostile-tenant.py's requests were answered, by kind then by status (0: no answer).
struct HostileTally {
    var kinds: [String: [Int: Int]] = [:]

    /// Adds the script's closing line, `{"kind": {"status": count}}`.
    mutating func add(_ line: String) {
        let decoded = (try? JSONDecoder().decode([String: [String: Int]].self, from: Data(line.utf8))) ?? [:]
        for (kind, statuses) in decoded {
            for (status, count) in statuses { kinds[kind, default: [:]][Int(status) ?? -1, default: 0] += count }
        }
    }

    var serverErrors: Int { kinds.values.flatMap { $0 }.filter { $0.key >= 500 }.reduce(0) { $0 + $1.value } }

    var summary: String {
        kinds.sorted { $0.key < $1.key }.map { kind, statuses in
            "\(kind) " + statuses.sorted { $0.key < $1.key }.map { "\($0.value)×\($0.key)" }.joined(separator: " ")
        }.joined(separator: "; ")
    }
}
