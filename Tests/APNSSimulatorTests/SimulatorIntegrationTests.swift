import APNSSimulator
import Foundation
import RelayCore
import Testing
import TestSupport

/// The simulator over real TLS sockets on 127.0.0.1, driven by nghttp2's own tools
/// (`h2load`, `nghttp`), `openssl s_client` and `curl`.
@Suite(.serialized) struct SimulatorIntegrationTests {
    static let token = String(repeating: "0123456789abcdef", count: 4)
    static let payload = #"{"aps":{"alert":"hello"},"k":1}"#

    /// A started simulator with a scratch directory holding its certificate and a payload file.
    struct Running {
        let simulator: APNSSimulator
        let port: Int
        let controlPort: Int
        let directory: URL

        var payloadPath: String { directory.appendingPathComponent("payload.json").path }
        var certificatePath: String { directory.appendingPathComponent("cert.pem").path }
        func url(_ token: String = SimulatorIntegrationTests.token) -> String { "https://127.0.0.1:\(port)/3/device/\(token)" }

        func stop() async {
            await simulator.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }

        func control(_ path: String, post: Bool = false) async throws -> [String: Any] {
            let result = try await ExternalTool.run(
                "/usr/bin/curl", ["-sS"] + (post ? ["-X", "POST"] : []) + ["http://127.0.0.1:\(controlPort)\(path)"]
            )
            return try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] ?? [:]
        }
    }

    static func start(_ configure: (inout APNSSimulatorConfiguration) -> Void = { _ in }) throws -> Running {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try payload.write(to: directory.appendingPathComponent("payload.json"), atomically: true, encoding: .utf8)
        var configuration = APNSSimulatorConfiguration()
        configuration.listen = .init(host: "127.0.0.1", port: 0)
        configuration.control = .init(host: "127.0.0.1", port: 0)
        configuration.writeCertificatePath = directory.appendingPathComponent("cert.pem").path
        configure(&configuration)
        let simulator = try APNSSimulator(configuration: configuration, logger: Logger(label: "apns-sim-test", level: .warning))
        let (port, controlPort) = try simulator.start()
        return Running(simulator: simulator, port: port, controlPort: controlPort!, directory: directory)
    }

    /// Runs `body` against a started simulator and always shuts it down afterwards.
    static func withSimulator(
        _ configure: (inout APNSSimulatorConfiguration) -> Void = { _ in },
        _ body: (Running) async throws -> Void
    ) async throws {
        let running = try start(configure)
        do {
            try await body(running)
        } catch {
            await running.stop()
            throw error
        }
        await running.stop()
    }

    /// nghttp's verbose trace of one POST.
    static func nghttp(_ url: String, headers: [String] = ["apns-topic: com.example"], data: String?, extra: [String] = []) async throws -> String {
        var arguments = ["-v", "--no-dep"] + extra
        for header in headers { arguments += ["-H", header] }
        if let data { arguments += ["-d", data] }
        return try await ExternalTool.run("/usr/bin/nghttp", arguments + [url]).output
    }

    @Test func h2loadTenThousandPostsAllSucceed() async throws {
        try await Self.withSimulator({ $0.threads = 2 }) { running in
            let result = try await ExternalTool.run("/usr/bin/h2load", [
                "-n", "10000", "-c", "4", "-m", "100", "-H", "apns-topic: com.example", "-d", running.payloadPath, running.url(),
            ])
            #expect(result.output.contains("status codes: 10000 2xx, 0 3xx, 0 4xx, 0 5xx"), "\(result.output)")
            let stats = try await running.control("/stats")
            #expect(stats["accepted"] as? Int == 10000)
            #expect(stats["streams"] as? Int == 10000)
            #expect(stats["connections"] as? Int == 4)
            #expect(stats["rejected_total"] as? Int == 0)
            #expect(running.simulator.stats.accepted == 10000)
        }
    }

    @Test func nghttpSeesAPNsStatusesAndReasons() async throws {
        try await Self.withSimulator({ $0.unregisteredPrefix = "dead" }) { running in

            let badToken = try await Self.nghttp(running.url("abc"), data: running.payloadPath)
            #expect(badToken.contains(":status: 400"))
            #expect(badToken.contains(#"{"reason":"BadDeviceToken"}"#))
            #expect(badToken.contains("apns-id: "))

            let dead = try await Self.nghttp(running.url("dead" + Self.token.dropFirst(4)), data: running.payloadPath)
            #expect(dead.contains(":status: 410"))
            #expect(dead.contains(#"{"reason":"Unregistered","timestamp":"#))

            let noTopic = try await Self.nghttp(running.url(), headers: [], data: running.payloadPath)
            #expect(noTopic.contains(":status: 400"))
            #expect(noTopic.contains(#"{"reason":"MissingTopic"}"#))

            let id = "123e4567-e89b-12d3-a456-426614174000"
            let accepted = try await Self.nghttp(
                running.url(), headers: ["apns-topic: com.example", "apns-id: \(id)"], data: running.payloadPath
            )
            #expect(accepted.contains(":status: 200"))
            #expect(accepted.contains("apns-id: \(id)"), "the sender's apns-id is echoed")

            let large = running.directory.appendingPathComponent("large.json")
            try (#"{"aps":{},"p":""# + String(repeating: "x", count: 6000) + #""}"#).write(to: large, atomically: true, encoding: .utf8)
            let tooLarge = try await Self.nghttp(running.url(), data: large.path)
            #expect(tooLarge.contains(":status: 413"))
            #expect(tooLarge.contains(#"{"reason":"PayloadTooLarge"}"#))

            let get = try await ExternalTool.run("/usr/bin/nghttp", ["-v", running.url()]).output
            #expect(get.contains(":status: 405"))
            #expect(get.contains(#"{"reason":"MethodNotAllowed"}"#))

            let stats = try await running.control("/stats")
            #expect(stats["accepted"] as? Int == 1)
            #expect(stats["rejected"] as? [String: Int] == [
                "BadDeviceToken": 1, "Unregistered": 1, "MissingTopic": 1, "PayloadTooLarge": 1, "MethodNotAllowed": 1,
            ])
        }
    }

    /// Issue 29: the push type's topic, priority and payload rules, and a VoIP token taking
    /// only VoIP pushes, over HTTP/2; the delivery log shows the priority as sent.
    @Test func pushTypeRulesAndTokenKindsOverHTTP2() async throws {
        try await Self.withSimulator({ $0.voipTokenPrefix = "ee" }) { running in
            let voipToken = "ee" + Self.token.dropFirst(2)
            func post(_ token: String, _ headers: [String]) async throws -> String {
                try await Self.nghttp(running.url(token), headers: headers, data: running.payloadPath)
            }
            let voip = try await post(voipToken, ["apns-topic: com.example.voip", "apns-push-type: voip", "apns-priority: 10"])
            #expect(voip.contains(":status: 200"), "\(voip)")
            let alertToVoIPToken = try await post(voipToken, ["apns-topic: com.example", "apns-push-type: alert"])
            #expect(alertToVoIPToken.contains(#"{"reason":"DeviceTokenNotForTopic"}"#), "\(alertToVoIPToken)")
            let voipToAlertToken = try await post(Self.token, ["apns-topic: com.example.voip", "apns-push-type: voip"])
            #expect(voipToAlertToken.contains(#"{"reason":"DeviceTokenNotForTopic"}"#))
            let bareTopic = try await post(voipToken, ["apns-topic: com.example", "apns-push-type: voip"])
            #expect(bareTopic.contains(#"{"reason":"BadTopic"}"#))
            let backgroundAlert = try await post(Self.token, ["apns-topic: com.example", "apns-push-type: background", "apns-priority: 5"])
            #expect(backgroundAlert.contains(#"{"reason":"InvalidPushType"}"#), "the payload shows an alert")
            let lowAlert = try await post(Self.token, ["apns-topic: com.example", "apns-push-type: alert", "apns-priority: 1"])
            #expect(lowAlert.contains(":status: 200"))

            let deliveries = try #require(try await running.control("/deliveries")["deliveries"] as? [[String: Any]])
            let byToken = Dictionary(uniqueKeysWithValues: deliveries.map { ($0["token"] as? String ?? "", $0) })
            #expect(byToken[voipToken]?["push_type"] as? String == "voip")
            #expect(byToken[voipToken]?["topic"] as? String == "com.example.voip")
            #expect(byToken[voipToken]?["priority"] as? String == "10")
            #expect(byToken[Self.token]?["priority"] as? String == "1")
            let stats = try await running.control("/stats")
            #expect(stats["rejected"] as? [String: Int] == ["DeviceTokenNotForTopic": 2, "BadTopic": 1, "InvalidPushType": 1])
        }
    }

    @Test func settingsAdvertiseTheConfiguredStreamLimit() async throws {
        try await Self.withSimulator({ $0.maxConcurrentStreams = 5 }) { running in
            let output = try await Self.nghttp(running.url(), data: running.payloadPath)
            #expect(output.contains("[SETTINGS_MAX_CONCURRENT_STREAMS(0x03):5]"), "\(output)")
            #expect(output.contains(":status: 200"))
        }
    }

    @Test func goawayAfterNStreamsAnswersTheAcceptedOnes() async throws {
        try await Self.withSimulator({ $0.goawayAfter = 2 }) { running in
            // Three concurrent POSTs on one connection: streams 1, 3 and 5.
            let output = try await Self.nghttp(running.url(), data: running.payloadPath, extra: ["-m", "3"])
            #expect(output.contains("recv GOAWAY frame"), "\(output)")
            #expect(output.contains("last_stream_id=3"))
            #expect(output.contains(#"opaque_data(21)=[{"reason":"Shutdown"}]"#))
            #expect(output.contains("recv RST_STREAM frame <length=4, flags=0x00, stream_id=5>"), "stream 5 is refused")
            #expect(output.components(separatedBy: ":status: 200").count - 1 == 2)
            let stats = running.simulator.stats
            #expect(stats.goaways == 1)
            #expect(stats.accepted == 2, "the refused stream is not delivered")
            #expect(stats.streams == 2)
        }
    }

    @Test func tokenAuthenticationOverTheWire() async throws {
        let signer = TestSigningKey()
        try await Self.withSimulator({ $0.jwtKeys = ["KEY1": signer.publicPEM] }) { running in
            let jwt = signer.jwt(keyID: "KEY1", issuedAt: Int64(Date().timeIntervalSince1970))
            let output = try await Self.nghttp(
                running.url(), headers: ["apns-topic: com.example", "authorization: bearer \(jwt)"], data: running.payloadPath
            )
            #expect(output.contains(":status: 200"), "\(output)")
            // One stream until a valid token, then the configured limit.
            #expect(output.contains("[SETTINGS_MAX_CONCURRENT_STREAMS(0x03):1]"))
            #expect(output.contains("[SETTINGS_MAX_CONCURRENT_STREAMS(0x03):1000]"))

            let missing = try await Self.nghttp(running.url(), data: running.payloadPath)
            #expect(missing.contains(":status: 403"))
            #expect(missing.contains(#"{"reason":"MissingProviderToken"}"#))

            let old = signer.jwt(keyID: "KEY1", issuedAt: Int64(Date().timeIntervalSince1970) - 7200)
            let expired = try await Self.nghttp(
                running.url(), headers: ["apns-topic: com.example", "authorization: bearer \(old)"], data: running.payloadPath
            )
            #expect(expired.contains(#"{"reason":"ExpiredProviderToken"}"#))
        }
    }

    @Test func generatedCertificateVerifiesForTheIPAndNegotiatesH2() async throws {
        try await Self.withSimulator { running in
            let result = try await ExternalTool.run("/usr/bin/openssl", [
                "s_client", "-connect", "127.0.0.1:\(running.port)", "-CAfile", running.certificatePath,
                "-verify_ip", "127.0.0.1", "-verify_return_error", "-alpn", "h2", "-tls1_2",
            ])
            #expect(result.output.contains("Verify return code: 0 (ok)"), "\(result.output)")
            #expect(result.output.contains("ALPN protocol: h2"))
            // h2 wherever the client lists it; APNs speaks nothing else, so http/1.1 alone is refused.
            let both = try await ExternalTool.run("/usr/bin/openssl", [
                "s_client", "-connect", "127.0.0.1:\(running.port)", "-CAfile", running.certificatePath, "-alpn", "http/1.1,h2",
            ])
            #expect(both.output.contains("ALPN protocol: h2"), "\(both.output)")
            let http1 = try await ExternalTool.run("/usr/bin/openssl", [
                "s_client", "-connect", "127.0.0.1:\(running.port)", "-CAfile", running.certificatePath, "-alpn", "http/1.1",
            ])
            #expect(http1.output.contains("no application protocol"), "\(http1.output)")
            #expect(running.simulator.certificatePEM == (try String(contentsOfFile: running.certificatePath, encoding: .utf8)))
        }
    }

    @Test func servesACertificateAndKeyFromFiles() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-sim-pem-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("server.crt").path
        let key = directory.appendingPathComponent("server.key").path
        let made = try await ExternalTool.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        #expect(made.status == 0, "\(made.output)")
        try await Self.withSimulator({
            $0.certificatePath = certificate
            $0.keyPath = key
            $0.writeCertificatePath = nil
        }) { running in
            let result = try await ExternalTool.run("/usr/bin/openssl", [
                "s_client", "-connect", "127.0.0.1:\(running.port)", "-CAfile", certificate,
                "-verify_ip", "127.0.0.1", "-verify_return_error", "-alpn", "h2",
            ])
            #expect(result.output.contains("Verify return code: 0 (ok)"), "\(result.output)")
            let output = try await Self.nghttp(running.url(), data: running.payloadPath)
            #expect(output.contains(":status: 200"))
        }
    }

    @Test func startFailsClearlyWithoutTheCertificateFiles() async throws {
        var configuration = APNSSimulatorConfiguration()
        configuration.certificatePath = "/nonexistent/server.crt"
        configuration.keyPath = "/nonexistent/server.key"
        #expect(throws: APNSSimulatorError.self) {
            try APNSSimulator(configuration: configuration, logger: Logger(label: "t", level: .warning))
        }
    }

    @Test func controlEndpointShowsDeliveriesAndResets() async throws {
        try await Self.withSimulator { running in
            _ = try await Self.nghttp(running.url(), headers: ["apns-topic: com.example", "apns-push-type: alert"], data: running.payloadPath)
            let deliveries = try await running.control("/deliveries?token=\(Self.token)")
            #expect(deliveries["count"] as? Int == 1)
            let first = (deliveries["deliveries"] as? [[String: Any]])?.first
            #expect(first?["token"] as? String == Self.token)
            #expect(first?["topic"] as? String == "com.example")
            #expect(first?["push_type"] as? String == "alert")
            #expect((first?["payload"] as? [String: Any])?["k"] as? Int == 1)
            let other = try await running.control("/deliveries?token=" + String(repeating: "ff", count: 32))
            #expect(other["count"] as? Int == 0)

            #expect(try await running.control("/reset", post: true)["reset"] as? Bool == true)
            let stats = try await running.control("/stats")
            #expect(stats["accepted"] as? Int == 0)
            #expect(try await running.control("/deliveries")["count"] as? Int == 0)
        }
    }

    /// `PUT /rates` changes the 429/500/503 rates of a running simulator, `GET /rates` reads
    /// them, and a body that is not valid rates is refused with 400 and changes nothing.
    @Test func ratesChangeWhileRunningThroughTheControlEndpoint() async throws {
        try await Self.withSimulator { running in
            let base = "http://127.0.0.1:\(running.controlPort)/rates"
            let put = { (body: String) async throws -> String in
                try await ExternalTool.run("/usr/bin/curl", ["-sS", "-X", "PUT", "-d", body, "-w", " %{http_code}", base]).output
            }
            let headers = ["apns-topic: com.example", "apns-push-type: alert"]
            #expect(try await put(#"{"rate_429":1}"#).hasSuffix(" 200"))
            #expect(try await running.control("/rates")["rate_429"] as? Double == 1)
            #expect(running.simulator.rates == FailureRates(rate429: 1))
            let refused = try await Self.nghttp(running.url(), headers: headers, data: running.payloadPath)
            #expect(refused.contains(":status: 429"), "\(refused)")

            #expect(try await put(#"{"rate_429":0.7,"rate_503":0.7}"#).hasSuffix(" 400"))
            #expect(running.simulator.rates == FailureRates(rate429: 1), "a refused body changes nothing")

            #expect(try await put("{}").hasSuffix(" 200"))
            let accepted = try await Self.nghttp(running.url(), headers: headers, data: running.payloadPath)
            #expect(accepted.contains(":status: 200"), "\(accepted)")
        }
    }

    /// 1,000 streams at once on one connection, each answered 150 ms later: the answers wait
    /// on loop timers together, so every request takes about 150 ms, not 1,000 × 150.
    @Test func latencyDelaysResponsesWithoutBlockingTheLoop() async throws {
        try await Self.withSimulator({ $0.latencyMilliseconds = 150 }) { running in
            let result = try await ExternalTool.run("/usr/bin/h2load", [
                "-n", "1000", "-c", "1", "-m", "1000", "-H", "apns-topic: com.example", "-d", running.payloadPath, running.url(),
            ])
            #expect(result.output.contains("status codes: 1000 2xx"), "\(result.output)")
            let times = try #require(SimulatorNetworkTests.requestTimes(result.output), "\(result.output)")
            #expect(times.min >= 0.15, "responses came before the latency")
            // Served one after another, the last would wait 150 s; a loop blocked per answer, as long.
            #expect(times.max < 0.75, "responses were serialised: \(times.max) s")
        }
    }

    @Test func seededRatesFailTheRightShare() async throws {
        try await Self.withSimulator({ $0.rate503 = 0.5; $0.seed = 3 }) { running in
            let result = try await ExternalTool.run("/usr/bin/h2load", [
                "-n", "2000", "-c", "2", "-m", "10", "-H", "apns-topic: com.example", "-d", running.payloadPath, running.url(),
            ])
            let stats = running.simulator.stats
            let unavailable = stats.rejected["ServiceUnavailable"] ?? 0
            #expect(stats.accepted + unavailable == 2000, "\(result.output)")
            #expect((800...1200).contains(unavailable))
            #expect(result.output.contains("\(unavailable) 5xx"))
        }
    }

    @Test func shutdownClosesOpenConnectionsAndFreesThePort() async throws {
        // A request held for 20 s keeps its connection open across the shutdown.
        let running = try Self.start { $0.latencyMilliseconds = 20_000 }
        async let client = Self.nghttp(running.url(), data: running.payloadPath)
        let deadline = Date().addingTimeInterval(10)
        while running.simulator.stats.streams == 0, Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(running.simulator.stats.openConnections == 1)
        let stopping = Date()
        await running.stop()
        let output = try await client
        #expect(Date().timeIntervalSince(stopping) < 5, "the client waited for the latency: shutdown left it open")
        #expect(!output.contains(":status: 200"))
        #expect(running.simulator.stats.openConnections == 0)

        // The listeners share their port (SO_REUSEPORT), so a plain bind proves it is free:
        // the control endpoint's listener does not set that option.
        var configuration = APNSSimulatorConfiguration()
        configuration.listen = .init(host: "127.0.0.1", port: 0)
        configuration.control = .init(host: "127.0.0.1", port: running.port)
        let again = try APNSSimulator(configuration: configuration, logger: Logger(label: "t", level: .warning))
        #expect(try again.start().controlPort == running.port, "the port is free again")
        await again.shutdown()
    }

    @Test func connectionsBeyondTheLimitAreClosed() async throws {
        try await Self.withSimulator({ $0.maxConnections = 1; $0.latencyMilliseconds = 1000 }) { running in
            // The first client holds its connection for the latency.
            async let first = Self.nghttp(running.url(), data: running.payloadPath)
            let deadline = Date().addingTimeInterval(10)
            while running.simulator.stats.streams == 0, Date() < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            let second = try await Self.nghttp(running.url(), data: running.payloadPath)
            #expect(!second.contains(":status:"), "\(second)")
            #expect(try await first.contains(":status: 200"))
            let stats = running.simulator.stats
            #expect(stats.refusedConnections == 1)
            #expect(stats.connections == 1)
        }
    }

    @Test func aSecondSimulatorDoesNotShareTheListenPort() async throws {
        try await Self.withSimulator({ $0.threads = 2 }) { running in
            var configuration = APNSSimulatorConfiguration()
            configuration.listen = .init(host: "127.0.0.1", port: running.port)
            let second = try APNSSimulator(configuration: configuration, logger: Logger(label: "t", level: .critical))
            do {
                _ = try second.start()
                Issue.record("a second simulator started on the same port")
                await second.shutdown()
            } catch is APNSSimulatorError {}
            // The first one still answers every connection.
            let result = try await ExternalTool.run("/usr/bin/h2load", [
                "-n", "200", "-c", "8", "-m", "10", "-H", "apns-topic: com.example", "-d", running.payloadPath, running.url(),
            ])
            #expect(result.output.contains("status codes: 200 2xx"), "\(result.output)")
            #expect(running.simulator.stats.connections == 8)
        }
    }

    @Test func startFailsWhenAPortIsTaken() async throws {
        try await Self.withSimulator { running in
            var configuration = APNSSimulatorConfiguration()
            configuration.listen = .init(host: "127.0.0.1", port: 0)
            configuration.control = .init(host: "127.0.0.1", port: running.controlPort)
            let second = try APNSSimulator(configuration: configuration, logger: Logger(label: "t", level: .critical))
            #expect(throws: APNSSimulatorError.self) { try second.start() }
            // The first one is unaffected.
            let output = try await Self.nghttp(running.url(), data: running.payloadPath)
            #expect(output.contains(":status: 200"))
        }
    }
}
