import Foundation
import Testing
import TestSupport

/// The deployment files under `deploy/`, checked against what can be checked here without
/// Docker, systemd as init or a cluster: the Makefile, the README, the built `pushrelay`
/// binary itself (its `help`, its argument parsing) and what `ldd` says it loads.
@Suite struct DeployFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    // MARK: Docker image

    @Test func dockerfileBuildsWithTheMakefileReleaseCommandsAndPackages() throws {
        let makefile = try Makefile(text: Self.text("Makefile"))
        let build = try Dockerfile(text: Self.text("deploy/docker/Dockerfile")).stages.first.unwrap("a build stage")
        let release = makefile.recipe("release").map { $0.replacingOccurrences(of: "$(SWIFT)", with: "swift") }
        try #require(!release.isEmpty, "the Makefile has no release recipe")
        for command in release {
            #expect(build.runCommands.contains(command), "the build stage does not run `\(command)` (make release does)")
        }
        // Nor any other `swift` command: another flag would build another binary than the one tested here.
        for command in build.runCommands where command.hasPrefix("swift ") {
            #expect(release.contains(command), "the build stage runs `\(command)`, which make release does not")
        }
        let developmentPackages = makefile.packages.filter { $0.hasSuffix("-dev") }
        try #require(!developmentPackages.isEmpty)
        for package in developmentPackages {
            #expect(build.installedPackages.contains(package), "the build stage does not install \(package) (the Makefile does)")
        }
    }

    @Test func runtimeStageInstallsEveryLibraryTheBinaryLoads() throws {
        let binary = try TestProcess.binary().path
        let runtime = try Dockerfile(text: Self.text("deploy/docker/Dockerfile")).stages.last.unwrap("a runtime stage")
        let listed = Set(runtime.installedPackages)
        let available = Debian.dependencyClosure(of: listed)
        let needed = Set(try Tool.run("readelf", ["-d", binary]).checked().output.split(separator: "\n").compactMap { line in
            line.contains("(NEEDED)") ? line.split(separator: "[").last?.split(separator: "]").first.map(String.init) : nil
        })
        var checked = 0
        for line in try Tool.run("ldd", [binary]).checked().output.split(separator: "\n") {
            // "libpq.so.5 => /lib/x86_64-linux-gnu/libpq.so.5 (0x…)"; the vDSO and the loader have no "=>".
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 3, parts[1] == "=>" else { continue }
            let name = String(parts[0].trimmingCharacters(in: .whitespaces)), path = String(parts[2])
            guard path != "not" else { Issue.record("ldd cannot find \(name) here"); continue }
            if path.contains("/lib/swift/") { continue }  // the Swift runtime, copied from the build stage
            let package = try #require(Debian.package(owning: path), "no Debian package owns \(path)")
            if package == "libc6" { continue }  // glibc: part of every Debian image
            checked += 1
            #expect(available.contains(package),
                    "\(name) (\(package)) is loaded by pushrelay but the runtime stage installs nothing that brings it")
            if needed.contains(name) {
                #expect(listed.contains(package), "pushrelay links \(name) itself: the runtime stage should name \(package)")
            }
        }
        #expect(checked >= 8, "ldd showed only \(checked) Debian libraries; expected libevent, nghttp2, libpq, OpenSSL…")
    }

    // MARK: Configuration and commands

    @Test func everyVariableInTheDeployFilesIsOneTheRelayReadsAndTheConfigurationPageDocuments() throws {
        let variable = try Regex("PUSHRELAY_[A-Z0-9_]+")
        func names(_ text: String) -> Set<String> { Set(text.matches(of: variable).map { String(text[$0.range]) }) }
        let known = names(try Tool.run(TestProcess.binary().path, ["help"]).checked().output)
        let documented = names(try Self.text("docs/configuration.md").split(separator: "\n")
            .filter { $0.hasPrefix("| `PUSHRELAY_") }.map { String($0.split(separator: "|").first ?? "") }.joined(separator: "\n"))
        try #require(known.count >= 10, "pushrelay help lists too few variables: \(known.sorted())")
        var used = 0
        for file in try Self.deployFiles() {
            for name in names(try Self.text(file)).sorted() {
                used += 1
                #expect(known.contains(name), "\(file) names \(name), which `pushrelay help` does not list")
                #expect(documented.contains(name), "\(file) names \(name), which the configuration table in docs/configuration.md does not list")
            }
        }
        #expect(used > 0)
    }

    @Test func everyCommandLineInTheDeployFilesIsAcceptedByTheBinary() throws {
        let invocations = try Self.invocations()
        let subcommands = Set(invocations.compactMap(\.arguments.first))
        #expect(subcommands.isSuperset(of: ["serve", "migrate", "apns-sim"]), "found \(subcommands.sorted())")
        let binary = try TestProcess.binary().path
        let scratch = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        for invocation in invocations {
            let arguments = invocation.arguments
            switch arguments.first {
            case "serve", "migrate":
                // An invalid setting stops the process right after it accepted its arguments and
                // before it touches a database or a port: its complaint shows how far it got.
                let result = try Tool.run(binary, arguments, environment: [
                    "PUSHRELAY_LOG_LEVEL": "not-a-level", "PUSHRELAY_DATA_DIR": scratch.path,
                ], directory: scratch)
                #expect(result.status != 0 && result.errors.contains("PUSHRELAY_LOG_LEVEL"),
                        "\(invocation.source): `pushrelay \(arguments.joined(separator: " "))` was refused: \(result.errors)")
            case "apns-sim":
                // The simulator parses every flag before `--help`, refusing unknown ones and bad values.
                let result = try Tool.run(binary, arguments + ["--help"], directory: scratch)
                #expect(result.status == 0, "\(invocation.source): `pushrelay \(arguments.joined(separator: " "))`: \(result.errors)")
            default:
                Issue.record("\(invocation.source): `pushrelay \(arguments.joined(separator: " "))` is no pushrelay command")
            }
        }
    }

    // MARK: Files

    @Test func everyYAMLFileParses() throws {
        let files = try Self.deployFiles().filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
        try #require(files.count >= 5)
        let documents = try Self.yamlDocuments()
        for file in files {
            #expect(!(documents[file] ?? []).isEmpty, "\(file) holds no YAML document")
        }
    }

    @Test func kubernetesPodsAreLockedDownProbedAndGivenTheirShutdownTime() throws {
        let documents = try Self.yamlDocuments().filter { $0.key.hasPrefix("deploy/kubernetes/") }
        let all = documents.values.flatMap { $0 }
        func kind(_ name: String) -> [[String: Any]] { all.filter { $0["kind"] as? String == name } }
        let deployments = kind("Deployment")
        let names = Set(deployments.compactMap { $0["metadata", "name"] as? String })
        #expect(names.isSuperset(of: ["pushrelay-api", "pushrelay-worker"]), "Deployments: \(names.sorted())")
        let configMaps = Set(kind("ConfigMap").compactMap { $0["metadata", "name"] as? String })
        let secrets = Set(kind("Secret").compactMap { $0["metadata", "name"] as? String })
        let budget = try Self.systemdStopTimeout()

        var templateLabels: [[String: String]] = []
        for deployment in deployments {
            let name = deployment["metadata", "name"] as? String ?? "?"
            let pod = try #require(deployment["spec", "template", "spec"] as? [String: Any], "\(name): no pod spec")
            let labels = deployment["spec", "template", "metadata", "labels"] as? [String: String] ?? [:]
            templateLabels.append(labels)
            let selector = deployment["spec", "selector", "matchLabels"] as? [String: String] ?? [:]
            #expect(!selector.isEmpty && selector.allSatisfy { labels[$0.key] == $0.value }, "\(name): selector does not match its pods")
            #expect(pod["securityContext", "runAsNonRoot"] as? Bool == true, "\(name): runAsNonRoot")
            let containers = (pod["containers"] as? [[String: Any]] ?? []) + (pod["initContainers"] as? [[String: Any]] ?? [])
            for container in containers {
                let what = "\(name)/\(container["name"] as? String ?? "?")"
                #expect(container["securityContext", "readOnlyRootFilesystem"] as? Bool == true, "\(what): readOnlyRootFilesystem")
                #expect(container["securityContext", "allowPrivilegeEscalation"] as? Bool == false, "\(what): allowPrivilegeEscalation")
                #expect((container["securityContext", "capabilities", "drop"] as? [String])?.contains("ALL") == true, "\(what): drop ALL")
                #expect(container["resources", "requests", "memory"] != nil && container["resources", "limits", "memory"] != nil,
                        "\(what): memory request and limit")
                for reference in container["envFrom"] as? [[String: Any]] ?? [] {
                    if let map = reference["configMapRef", "name"] as? String { #expect(configMaps.contains(map), "\(what): no ConfigMap \(map)") }
                    if let secret = reference["secretRef", "name"] as? String { #expect(secrets.contains(secret), "\(what): no Secret \(secret)") }
                }
            }
            let main = try #require((pod["containers"] as? [[String: Any]])?.first, "\(name): no container")
            // The grace period covers a preStop pause plus the relay's own shutdown budget.
            let pause = (main["lifecycle", "preStop", "exec", "command"] as? [String]).flatMap { $0.first == "sleep" ? Int($0[1]) : nil } ?? 0
            let grace = pod["terminationGracePeriodSeconds"] as? Int ?? 30
            #expect(grace >= pause + budget, "\(name): \(grace) s of grace for \(pause) s of preStop and \(budget) s of shutdown")
            if (main["args"] as? [String])?.contains("api") == true {
                #expect(main["readinessProbe", "httpGet", "path"] as? String == "/readyz", "\(name): readiness on /readyz")
                #expect(main["livenessProbe", "httpGet", "path"] as? String == "/healthz", "\(name): liveness on /healthz")
            }
        }
        func selectsPods(_ selector: [String: String]?) -> Bool {
            guard let selector, !selector.isEmpty else { return false }
            return templateLabels.contains { labels in selector.allSatisfy { labels[$0.key] == $0.value } }
        }
        for service in kind("Service") {
            #expect(selectsPods(service["spec", "selector"] as? [String: String]), "Service \(service["metadata", "name"] ?? "?") selects no pods")
        }
        let budgets = kind("PodDisruptionBudget")
        #expect(!budgets.isEmpty, "no PodDisruptionBudget")
        for pdb in budgets {
            #expect(selectsPods(pdb["spec", "selector", "matchLabels"] as? [String: String]), "PDB \(pdb["metadata", "name"] ?? "?") selects no pods")
        }
        // kustomization.yaml names every manifest beside it, and only those.
        let kustomization = try #require(documents["deploy/kubernetes/kustomization.yaml"]?.first)
        let manifests = Set(documents.keys.map { String($0.dropFirst("deploy/kubernetes/".count)) }).subtracting(["kustomization.yaml"])
        #expect(Set(kustomization["resources"] as? [String] ?? []) == manifests)
    }

    @Test func composeWiresTheWorkerToTheSimulatorAndStopsGracefully() throws {
        let compose = try #require(Self.yamlDocuments()["deploy/docker/compose.yaml"]?.first)
        let services = try #require(compose["services"] as? [String: [String: Any]])
        let simulator = try #require(services.values.first { ($0["command"] as? [String])?.first == "apns-sim" }, "no apns-sim service")
        let arguments = simulator["command"] as? [String] ?? []
        func flag(_ name: String) -> String? { arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } }
        let workers = services.values.filter { ($0["command"] as? [String]) == ["serve", "--role", "worker"] }
        try #require(workers.count == 1, "one worker service")
        let environment = workers[0]["environment"] as? [String: Any] ?? [:]
        #expect(environment["PUSHRELAY_APNS_CA_FILE"] as? String == flag("--write-cert"), "the worker trusts what the simulator writes")
        for endpoint in ["PUSHRELAY_APNS_PRODUCTION_URL", "PUSHRELAY_APNS_SANDBOX_URL"] {
            #expect(environment[endpoint] as? String == flag("--listen").map { "https://\($0)" }, "\(endpoint) is the simulator")
        }
        let budget = try Self.systemdStopTimeout()
        for (name, service) in services where (service["image"] as? String)?.hasPrefix("pushrelay") == true
            && (service["command"] as? [String])?.first == "serve" {
            #expect(service["stop_grace_period"] as? String == "\(budget)s", "\(name): stop_grace_period is the shutdown budget")
        }
    }

    @Test func systemdUnitsAreHardenedAndStartAfterTheMigration() throws {
        let units = try Self.deployFiles().filter { $0.hasPrefix("deploy/systemd/") && $0.hasSuffix(".service") }
        #expect(Set(units.map { URL(fileURLWithPath: $0).lastPathComponent })
            .isSuperset(of: ["pushrelay-api.service", "pushrelay-worker.service", "pushrelay-migrate.service"]))
        let hardening = [
            "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "CapabilityBoundingSet=",
            "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX", "SystemCallFilter=@system-service", "StateDirectory=pushrelay",
        ]
        for unit in units {
            let lines = Set(try Self.text(unit).split(separator: "\n").map(String.init))
            for setting in hardening { #expect(lines.contains(setting), "\(unit) lacks \(setting)") }
            if unit.hasSuffix("migrate.service") { continue }
            for setting in ["After=network-online.target pushrelay-migrate.service", "Requires=pushrelay-migrate.service",
                            "KillSignal=SIGTERM"] {
                #expect(lines.contains(setting), "\(unit) lacks \(setting)")
            }
            #expect(lines.contains { $0.hasPrefix("LimitNOFILE=") }, "\(unit) lacks LimitNOFILE")
        }
    }

    @Test(.enabled(if: DeployFilesTests.Tool.find("systemd-analyze") != nil, "systemd-analyze is not installed"))
    func systemdAnalyzerFindsNothingWrongInTheUnits() throws {
        let units = try Self.deployFiles().filter { $0.hasSuffix(".service") }.map { Self.root.appendingPathComponent($0).path }
        let result = try Tool.run("systemd-analyze", ["verify"] + units)
        // What only a real installation has (the binary in place, systemd's own units) is not the units' fault.
        let problems = (result.output + result.errors).split(separator: "\n").filter { line in
            !line.contains("/usr/local/bin/pushrelay is not executable") && !line.contains(".target not found")
                && !line.contains("Unit pushrelay-migrate.service not found")
        }
        #expect(problems.isEmpty, "systemd-analyze verify:\n\(problems.joined(separator: "\n"))")
    }

    @Test(.enabled(if: DeployFilesTests.Tool.find("kubectl") != nil, "kubectl is not installed"))
    func kustomizeBuildsTheKubernetesManifests() throws {
        // Offline: kustomize resolves the resources and the image name, no cluster involved.
        let result = try Tool.run("kubectl", ["kustomize", Self.root.appendingPathComponent("deploy/kubernetes").path])
        #expect(result.status == 0, "kubectl kustomize: \(result.errors)")
        #expect(result.output.components(separatedBy: "\nkind: Deployment\n").count - 1 >= 2, "the Deployments are in the build")
        #expect(!result.output.contains("image: pushrelay\n"), "every pushrelay image is replaced by the kustomization's")
    }

    // MARK: Reading the files

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Every file under deploy/, relative to the repository root, sorted.
    static func deployFiles() throws -> [String] {
        let base = root.appendingPathComponent("deploy")
        let enumerator = try FileManager.default.enumerator(atPath: base.path).unwrap("deploy/ is missing")
        var files: [String] = []
        while let path = enumerator.nextObject() as? String {
            var directory: ObjCBool = false
            if FileManager.default.fileExists(atPath: base.appendingPathComponent(path).path, isDirectory: &directory), !directory.boolValue {
                files.append("deploy/" + path)
            }
        }
        try #require(!files.isEmpty)
        return files.sorted()
    }

    /// Every YAML file under deploy/ parsed by PyYAML (merge keys resolved), as JSON values.
    static func yamlDocuments() throws -> [String: [[String: Any]]] {
        let files = try deployFiles().filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
        let script = """
            import json, sys, yaml
            print(json.dumps({path: [d for d in yaml.safe_load_all(open(path)) if d is not None] for path in sys.argv[1:]}))
            """
        let result = try Tool.run("python3", ["-c", script] + files, directory: root)
        try #require(result.status == 0, "YAML does not parse (or python3 has no yaml module): \(result.errors)")
        let parsed = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: [[String: Any]]]
        return try parsed.unwrap("unexpected YAML documents")
    }

    /// The shutdown budget every deployment gives the relay: the systemd units' TimeoutStopSec, in seconds.
    static func systemdStopTimeout() throws -> Int {
        let unit = try text("deploy/systemd/pushrelay-worker.service")
        let line = try unit.split(separator: "\n").first { $0.hasPrefix("TimeoutStopSec=") }.unwrap("no TimeoutStopSec")
        return try Int(line.dropFirst("TimeoutStopSec=".count).replacingOccurrences(of: "s", with: "")).unwrap("TimeoutStopSec in seconds")
    }

    /// A `pushrelay` command line found in a deploy file.
    struct Invocation {
        let source: String
        let arguments: [String]
    }

    /// Every `pushrelay` command line: systemd ExecStart, compose commands (and the image's
    /// default command), Kubernetes container args.
    static func invocations() throws -> [Invocation] {
        var found: [Invocation] = []
        for file in try deployFiles() where file.hasSuffix(".service") {
            for line in try text(file).split(separator: "\n") where line.hasPrefix("ExecStart=") {
                let words = line.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
                #expect(words.first?.hasSuffix("/pushrelay") == true, "\(file): \(line)")
                found.append(Invocation(source: file, arguments: Array(words.dropFirst())))
            }
        }
        let dockerfile = try Dockerfile(text: text("deploy/docker/Dockerfile"))
        let defaultCommand = try dockerfile.jsonArgument("CMD").unwrap("the Dockerfile has no CMD")
        #expect(dockerfile.jsonArgument("ENTRYPOINT")?.first?.hasSuffix("/pushrelay") == true, "the image's entrypoint is pushrelay")
        found.append(Invocation(source: "deploy/docker/Dockerfile CMD", arguments: defaultCommand))
        let documents = try yamlDocuments()
        for (name, service) in documents["deploy/docker/compose.yaml"]?.first?["services"] as? [String: [String: Any]] ?? [:]
        where (service["image"] as? String)?.hasPrefix("pushrelay") == true {
            found.append(Invocation(source: "compose service \(name)", arguments: service["command"] as? [String] ?? defaultCommand))
        }
        for (file, docs) in documents where file.hasPrefix("deploy/kubernetes/") {
            for document in docs {
                let pod = document["spec", "template", "spec"] as? [String: Any] ?? document["spec", "jobTemplate", "spec", "template", "spec"] as? [String: Any]
                for container in (pod?["containers"] as? [[String: Any]] ?? []) + (pod?["initContainers"] as? [[String: Any]] ?? [])
                where (container["image"] as? String)?.hasPrefix("pushrelay") == true {
                    found.append(Invocation(source: "\(file) \(container["name"] as? String ?? "?")",
                                            arguments: container["args"] as? [String] ?? defaultCommand))
                }
            }
        }
        return found
    }
}

extension DeployFilesTests {
/// The recipes and package list of the Makefile (just enough make syntax for ours).
struct Makefile {
    let lines: [String]

    /// The logical lines: a line ending in a backslash continues on the next.
    init(text: String) {
        var joined: [String] = []
        var pending = ""
        for line in text.components(separatedBy: "\n") {
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
            } else {
                joined.append(pending + line)
                pending = ""
            }
        }
        lines = joined
    }

    /// The commands of `target`'s recipe, in order.
    func recipe(_ target: String) -> [String] {
        guard let start = lines.firstIndex(where: { $0.hasPrefix("\(target):") }) else { return [] }
        return lines[(start + 1)...].prefix { $0.hasPrefix("\t") }.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Every word assigned or appended to PACKAGES.
    var packages: [String] {
        lines.compactMap { line -> [String]? in
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].split(separator: " ").first == "PACKAGES" else { return nil }
            return parts[1].split(whereSeparator: \.isWhitespace).map(String.init)
        }.flatMap { $0 }
    }
}

/// A Dockerfile's instructions, stage by stage (continuation lines joined, comments dropped).
struct Dockerfile {
    struct Stage {
        var instructions: [(keyword: String, argument: String)] = []

        /// Each `&&`-separated command of every RUN.
        var runCommands: [String] {
            instructions.filter { $0.keyword == "RUN" }.flatMap { $0.argument.components(separatedBy: "&&") }
                .map { $0.split(separator: " ").joined(separator: " ") }
        }

        /// The packages every `apt-get install` of the stage names.
        var installedPackages: [String] {
            runCommands.flatMap { command -> [String] in
                let words = command.split(separator: " ").map(String.init)
                guard let install = words.firstIndex(of: "install"), install > 0, words[install - 1] == "apt-get" else { return [] }
                return words[(install + 1)...].filter { !$0.hasPrefix("-") }
            }
        }
    }

    var stages: [Stage] = []
    var preamble = Stage()

    init(text: String) {
        var logical: [String] = []
        var pending = ""
        for raw in text.components(separatedBy: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") || (line.isEmpty && pending.isEmpty) { continue }
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
            } else {
                logical.append(pending + line)
                pending = ""
            }
        }
        for line in logical where !line.isEmpty {
            let keyword = String(line.prefix { !$0.isWhitespace }).uppercased()
            let argument = line.dropFirst(keyword.count).trimmingCharacters(in: .whitespaces)
            if keyword == "FROM" { stages.append(Stage()) }
            if stages.isEmpty { preamble.instructions.append((keyword, argument)) } else { stages[stages.count - 1].instructions.append((keyword, argument)) }
        }
    }

    /// The exec-form (JSON array) argument of the last `keyword` instruction of the last stage.
    func jsonArgument(_ keyword: String) -> [String]? {
        guard let argument = stages.last?.instructions.last(where: { $0.keyword == keyword })?.argument else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(argument.utf8))) as? [String]
    }
}

/// What dpkg knows about this machine's packages (Debian 12, the image's base too).
enum Debian {
    /// The installed package that ships `path` (through the /lib → /usr/lib merge and symlinks).
    static func package(owning path: String) -> String? {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        for candidate in [path, "/usr" + path, resolved, "/usr" + resolved] {
            guard let result = try? Tool.run("dpkg-query", ["-S", candidate]), result.status == 0 else { continue }
            if let line = result.output.split(separator: "\n").first(where: { !$0.hasPrefix("diversion") }),
               let package = line.split(separator: ":").first {
                return String(package)
            }
        }
        return nil
    }

    /// `packages` and everything they depend on (Depends, Pre-Depends; every alternative), as installed here.
    static func dependencyClosure(of packages: Set<String>) -> Set<String> {
        var seen = Set<String>()
        var queue = Array(packages)
        while let package = queue.popLast() {
            guard seen.insert(package).inserted else { continue }
            guard let result = try? Tool.run("dpkg-query", ["-W", "-f=${Depends}, ${Pre-Depends}", package]), result.status == 0 else { continue }
            for alternative in result.output.split(separator: ",") {
                for option in alternative.split(separator: "|") {
                    if let name = option.split(separator: " ").first?.split(separator: ":").first { queue.append(String(name)) }
                }
            }
        }
        return seen
    }
}

/// Runs command line tools found on PATH, capturing their output.
enum Tool {
    struct Result {
        let status: Int32
        let output: String
        let errors: String

        func checked() throws -> Result {
            guard status == 0 else { throw HarnessError("exited \(status): \(errors)") }
            return self
        }
    }

    static func find(_ name: String) -> String? {
        if name.hasPrefix("/") { return name }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `name` (a path, or a name looked up on PATH) with the process's environment plus `environment`.
    static func run(_ name: String, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil) throws -> Result {
        let executable = try find(name).unwrap("\(name) is not installed")
        let scratch = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        // Files, not pipes: nothing can block on a full pipe, however much either stream says.
        let outputFile = scratch.appendingPathComponent("out"), errorFile = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      output: try String(contentsOf: outputFile, encoding: .utf8),
                      errors: try String(contentsOf: errorFile, encoding: .utf8))
    }
}

}

private extension Optional {
    func unwrap(_ what: String) throws -> Wrapped {
        guard let self else { throw HarnessError("missing: \(what)") }
        return self
    }
}

private extension Dictionary where Key == String, Value == Any {
    /// The value at a path of keys through nested JSON objects.
    subscript(_ first: String, _ rest: String...) -> Any? {
        var value: Any? = self[first]
        for key in rest { value = (value as? [String: Any])?[key] }
        return value
    }
}
