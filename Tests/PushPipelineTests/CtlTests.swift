import Foundation
import Testing

/// `pushrelay ctl`, the binary, driven end to end against a relay and the APNs simulator:
/// every subcommand, its tables, `--json`, its progress output and its exit codes.
@Suite(.serialized) struct CtlTests {
    @Test func everySubcommandAgainstARunningRelay() async throws {
        try await PipelineHarness.with { relay in
            let ctl = try Ctl(relay)

            // apps create | list | show
            let created = try await ctl.json(["apps", "create", "--name", "ctl app"])
            let key = try #require(created["app_key"] as? String)
            let secret = try #require(created["master_secret"] as? String)
            let table = try await ctl.ok(["apps", "create", "--name", "second app"])
            #expect(table.contains("master_secret") && table.contains("shown only now"))
            let listed = try await ctl.ok(["apps", "list"])
            #expect(listed.hasPrefix("APP_KEY") && listed.contains(key) && listed.contains("ctl app"))

            // apns set from the simulator-trusted .p8 file
            let p8 = relay.directory.appendingPathComponent("AuthKey.p8").path
            let credential = try await ctl.json(["apns", "set", key, "--topic", PipelineHarness.topic, "--p8", p8,
                                                 "--key-id", PipelineHarness.keyID, "--team-id", PipelineHarness.teamID])
            #expect(credential["auth"] as? String == "token")
            #expect(try await ctl.ok(["apps", "show", key]).contains("apns.topic"))

            // devices register | show
            let app = ["--app-key", key, "--app-secret", secret]
            let token = PipelineHarness.token(prefix: "c7", index: 1)
            let registered = try await ctl.json(["devices", "register", token, "--alias", "bob", "--tag", "vip,beta"] + app)
            let rid = try #require(registered["registration_id"] as? String)
            let shown = try await ctl.json(["devices", "show", rid] + app)
            #expect(shown["alias"] as? String == "bob")
            #expect(Set(shown["tags"] as? [String] ?? []) == ["vip", "beta"])

            // devices import: batches, a progress line with a rate, a bad line found by its number in the file
            var csv = "token,environment,alias,tags\n"
            for index in 0..<2500 {
                csv += index == 1234 ? "nothex,production,,\n" : "\(PipelineHarness.token(prefix: "c8", index: index)),production,,\n"
            }
            let file = relay.directory.appendingPathComponent("devices.csv")
            try csv.write(to: file, atomically: true, encoding: .utf8)
            let imported = try await ctl.run(["devices", "import", file.path, "--batch", "1000", "--json"] + app)
            #expect(imported.status == 0)
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [String: Any])
            #expect(summary["accepted"] as? Int == 2499)
            #expect(summary["rejected"] as? Int == 1)
            #expect((summary["rejected_lines"] as? [[String: Any]])?.first?["line"] as? Int == 1236)
            #expect(imported.stderr.contains("2500/2500 lines") && imported.stderr.contains("/s"))

            // push send --all follows the fan-out to the end
            let pushed = try await ctl.run(["push", "send", "--all", "--alert", "hello from ctl", "--badge", "+1", "--extra", "k=v"] + app)
            #expect(pushed.status == 0, "\(pushed.stderr)")
            #expect(pushed.stderr.contains("[##############################] 100%"))
            #expect(pushed.stderr.contains("done"))
            #expect(pushed.stdout.contains("sent") && pushed.stdout.contains("2500"))
            let msgID = try #require(pushed.stdout.split(separator: "\n").first { $0.hasPrefix("msg_id") }?.split(separator: " ").last.map(String.init))
            let received = relay.simulator.deliveries().filter { $0.msgID == Int64(msgID) }
            #expect(received.count == 2500)
            #expect((received.first?.json["k"] as? String) == "v")

            let toBob = try await ctl.json(["push", "send", "--alias", "bob", "--alert", "hi bob"] + app)
            #expect(toBob["state"] as? String == "done")
            #expect(((toBob["details"] as? [String: Any])?["notification"] as? [String: Any])?["sent"] as? Int == 1)

            // report | stats
            let report = try await ctl.ok(["report", msgID])
            #expect(report.contains("hello from ctl"))
            #expect(report.contains("STEP") && report.contains("100.0%"))
            let funnel = try await ctl.json(["report", msgID])
            #expect((funnel["funnel"] as? [String: Any])?["sent"] as? Int == 2500)
            let stats = try await ctl.ok(["stats", "--bucket", "hour"])
            #expect(stats.contains(key) && stats.contains("2501"))
            let statsJSON = try await ctl.json(["stats", "--app-key", key])
            #expect((statsJSON["totals"] as? [String: Any])?["sent"] as? Int == 2501)

            // rotate-secret: the old secret is refused (exit 4, one line)
            let rotated = try await ctl.json(["apps", "rotate-secret", key])
            #expect(rotated["master_secret"] as? String != secret)
            let refused = try await ctl.run(["devices", "show", rid] + app)
            #expect(refused.status == 4)
            #expect(refused.stderr.hasPrefix("pushrelay ctl: ") && refused.stderr.split(separator: "\n").count == 1)

            // delete, then nothing there (exit 5)
            #expect(try await ctl.ok(["apps", "delete", key]).contains("deleted"))
            #expect(try await ctl.run(["apps", "show", key]).status == 5)

            // the other exit codes
            #expect(try await ctl.run(["apps", "frobnicate"]).status == 2)
            #expect(try await ctl.run(["push", "send", "--alert", "no audience"] + app).status == 2)
            #expect(try await ctl.run(["apps", "list", "--url", "http://127.0.0.1:1"]).status == 3)
            #expect(try await ctl.run(["apps", "list", "--admin-token", "wrong"]).status == 4)
            let invalid = try await ctl.run(["apns", "set", key + "x", "--topic", "t", "--p8", p8, "--key-id", "K", "--team-id", "T"])
            #expect([1, 5].contains(invalid.status))
        }
    }
}

/// `ctl apns set --environment` sets one environment's credential; `apps show` lists both.
@Suite(.serialized) struct CtlEnvironmentTests {
    @Test func credentialsPerEnvironment() async throws {
        try await PipelineHarness.with { relay in
            let ctl = try Ctl(relay)
            let key = try #require(try await ctl.json(["apps", "create", "--name", "envs"])["app_key"] as? String)
            let p8 = relay.directory.appendingPathComponent("AuthKey.p8").path
            let set = ["apns", "set", key, "--topic", PipelineHarness.topic, "--p8", p8, "--team-id", PipelineHarness.teamID]
            let sandbox = try await ctl.json(set + ["--key-id", "SANDBOX001", "--environment", "sandbox"])
            #expect(sandbox["environment"] as? String == "sandbox" && sandbox["key_id"] as? String == "SANDBOX001")
            let shown = try await ctl.ok(["apps", "show", key])
            #expect(shown.contains("apns.key_id [sandbox]") && shown.contains("SANDBOX001"), "\(shown)")
            #expect(shown.contains("apns [production]") && shown.contains("none"), "\(shown)")
            let both = try await ctl.ok(set + ["--key-id", PipelineHarness.keyID])
            #expect(both.contains("apns.key_id [production]") && both.contains("apns.key_id [sandbox]"), "\(both)")
            #expect(try await ctl.run(set + ["--key-id", "X", "--environment", "staging"]).status == 2)
        }
    }
}

/// Runs the `pushrelay ctl` binary against a harness' relay, on a thread of its own (the
/// relay in this process needs the concurrency pool while we wait).
struct Ctl {
    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    let binary: URL
    let environment: [String: String]
    let directory: URL

    init(_ relay: PipelineHarness) throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        guard let binary = [directory, directory.deletingLastPathComponent()].map({ $0.appendingPathComponent("pushrelay") })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw HarnessError("pushrelay binary not found near \(directory.path); run `swift build` first")
        }
        self.binary = binary
        self.directory = relay.directory
        var environment = ProcessInfo.processInfo.environment
        environment["PUSHRELAY_URL"] = "http://127.0.0.1:\(relay.port)"
        environment["PUSHRELAY_ADMIN_TOKEN"] = PipelineHarness.adminToken
        self.environment = environment
    }

    func run(_ arguments: [String]) async throws -> Result {
        try await runTool(binary, ["ctl"] + arguments, environment: environment, scratch: directory)
    }

    /// Runs and expects exit 0; returns standard output.
    func ok(_ arguments: [String]) async throws -> String {
        let result = try await run(arguments)
        guard result.status == 0 else { throw HarnessError("ctl \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)") }
        return result.stdout
    }

    /// Runs with `--json` and expects exit 0 and a JSON object.
    func json(_ arguments: [String]) async throws -> [String: Any] {
        let text = try await ok(arguments + ["--json"])
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw HarnessError("ctl \(arguments.joined(separator: " ")) printed no JSON object: \(text)")
        }
        return object
    }
}

/// Runs a program to its end without blocking the concurrency pool (the relay in this
/// process needs it meanwhile); its output goes through files in `scratch`.
func runTool(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil, scratch: URL) async throws -> Ctl.Result {
    let out = scratch.appendingPathComponent("tool-\(UUID().uuidString).out")
    let err = scratch.appendingPathComponent("tool-\(UUID().uuidString).err")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    defer {
        try? FileManager.default.removeItem(at: out)
        try? FileManager.default.removeItem(at: err)
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do { try process.run() } catch { continuation.resume(throwing: error) }
    }
    return Ctl.Result(status: status, stdout: try String(contentsOf: out, encoding: .utf8), stderr: try String(contentsOf: err, encoding: .utf8))
}
