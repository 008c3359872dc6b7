import Foundation
import Testing
@testable import APNSSimulator

@Suite struct ConfigurationTests {
    @Test func defaults() throws {
        let configuration = try APNSSimulatorConfiguration.parse(arguments: [])
        #expect(configuration == APNSSimulatorConfiguration())
        #expect(configuration.maxConcurrentStreams == 1000)
        #expect(configuration.listen == .init(host: "127.0.0.1", port: 2197))
    }

    @Test func everyFlag() throws {
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("sim-key-\(UUID().uuidString).pem")
        try "PEM TEXT".write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let configuration = try APNSSimulatorConfiguration.parse(arguments: [
            "--listen", "0.0.0.0:0", "--control=[::1]:9000", "--cert", "c.pem", "--key", "k.pem",
            "--write-cert", "out.pem", "--threads", "2", "--max-concurrent-streams", "5",
            "--jwt-key", "KEY123=\(keyFile.path)", "--accept-any-token", "--unregistered-prefix", "dead",
            "--bad-token-prefix", "bad0", "--rate-429", "0.1", "--rate-500=0.2", "--rate-503", "0.3",
            "--seed", "9", "--goaway-after", "3", "--reset-after", "4", "--refuse-tls-for=5", "--latency-ms", "20", "--max-recorded", "7", "--max-connections", "8",
        ])
        var expected = APNSSimulatorConfiguration()
        expected.listen = .init(host: "0.0.0.0", port: 0)
        expected.control = .init(host: "::1", port: 9000)
        expected.certificatePath = "c.pem"
        expected.keyPath = "k.pem"
        expected.writeCertificatePath = "out.pem"
        expected.threads = 2
        expected.maxConcurrentStreams = 5
        expected.jwtKeys = ["KEY123": "PEM TEXT"]
        expected.acceptAnyToken = true
        expected.unregisteredPrefix = "dead"
        expected.badTokenPrefix = "bad0"
        expected.rate429 = 0.1
        expected.rate500 = 0.2
        expected.rate503 = 0.3
        expected.seed = 9
        expected.goawayAfter = 3
        expected.resetAfter = 4
        expected.refuseTLSSeconds = 5
        expected.latencyMilliseconds = 20
        expected.maxRecordedTokens = 7
        expected.maxConnections = 8
        #expect(configuration == expected)
    }

    @Test func rejectsBadValues() {
        for arguments in [
            ["--threads", "0"], ["--rate-500", "1.5"], ["--rate-429", "0.6", "--rate-503", "0.6"],
            ["--cert", "c.pem"], ["--goaway-after", "0"], ["--listen", "nowhere"], ["--listen", "h:70000"],
            ["--seed", "x"], ["--latency-ms"], ["--jwt-key", "nokey"], ["--jwt-key", "K=/nonexistent/file"],
            ["--max-connections", "0"], ["--reset-after", "0"], ["--refuse-tls-for", "-1"], ["--bogus"],
        ] {
            #expect(throws: APNSSimulatorError.self, "\(arguments)") {
                try APNSSimulatorConfiguration.parse(arguments: arguments)
            }
        }
    }

    @Test func helpIsAHelpRequestWithUsage() {
        do {
            _ = try APNSSimulatorConfiguration.parse(arguments: ["--help"])
            Issue.record("--help did not throw")
        } catch let error as APNSSimulatorError {
            #expect(error.isHelpRequest)
            #expect(error.message.contains("--goaway-after"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
