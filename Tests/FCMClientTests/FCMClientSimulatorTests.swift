import APNSClient
import APNSSimulator
import FCMSimulator
import Foundation
import RelayCore
import RelayCrypto
import Testing
@testable import FCMClient

/// The client against `FCMSimulator` over TLS and HTTP/2 on 127.0.0.1 (port 0): access
/// tokens fetched with signed assertions and reused, a 401 refreshed once, each of FCM's
/// error answers read into the action the pipeline takes.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct FCMClientSimulatorTests {
    /// A simulator trusting one fresh service account, and a client configuration for it.
    struct Fixture {
        let simulator: FCMSimulator
        let account: FCMServiceAccount
        let configuration: FCMClientConfiguration
        let directory: URL

        static func start(adjust: (inout FCMSimulatorConfiguration) -> Void = { _ in }) throws -> Fixture {
            var account = FCMServiceAccount(
                projectID: "demo-project", clientEmail: "sender@demo-project.iam.gserviceaccount.com", privateKeyID: "k1",
                privateKeyPEM: try RS256Signer.generateKeyPEM())
            var server = APNSSimulatorConfiguration()
            server.listen = .init(host: "127.0.0.1", port: 0)
            server.unregisteredPrefix = "dead"
            server.badTokenPrefix = "bad"
            var configuration = FCMSimulatorConfiguration(server: server, serviceAccounts: [account])
            adjust(&configuration)
            let simulator = try FCMSimulator(configuration: configuration, logger: Logger(label: "fcm-sim", level: .error))
            let port = try simulator.start().port
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let caFile = directory.appendingPathComponent("ca.pem").path
            try simulator.certificatePEM.write(toFile: caFile, atomically: true, encoding: .utf8)
            account.tokenURI = "https://127.0.0.1:\(port)/token"
            return Fixture(simulator: simulator, account: account,
                           configuration: FCMClientConfiguration(endpoint: URL(string: "https://127.0.0.1:\(port)")!, caFile: caFile),
                           directory: directory)
        }

        func client(account: FCMServiceAccount? = nil) throws -> FCMClient {
            try FCMClient(configuration: configuration, account: account ?? self.account, logger: Logger(label: "fcm", level: .error))
        }

        func stop() async {
            await simulator.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static let message = Array(#"{"notification":{"title":"Hi","body":"there"},"data":{"k":"v"},"android":{"priority":"HIGH","ttl":"60s"}}"#.utf8)

    static func messages(_ count: Int, prefix: String = "tok", body: [UInt8] = message) -> [FCMMessage] {
        (0..<count).map { FCMMessage(token: "\(prefix)\($0)", message: body) }
    }

    @Test func oneAccessTokenServesManySends() async throws {
        let fixture = try Fixture.start()
        let client = try fixture.client()
        let first = await client.send(Self.messages(500))
        let second = await client.send(Self.messages(10, prefix: "again"), urgent: true)
        #expect((first + second).allSatisfy { FCMAction(for: $0) == .sent })
        #expect(fixture.simulator.accessTokensIssued == 1)
        #expect(fixture.simulator.stats.accepted == 510)
        let delivered = try #require(fixture.simulator.deliveries(token: "tok7").first)
        let body = try JSONSerialization.jsonObject(with: Data(delivered.payload)) as? [String: [String: Any]]
        #expect(body?["message"]?["token"] as? String == "tok7")
        await client.shutdown()
        await fixture.stop()
    }

    @Test func a401IsRefreshedOnceThenTheCredentialIsBroken() async throws {
        let fixture = try Fixture.start()
        let client = try fixture.client()
        #expect(await client.send(Self.messages(3)).allSatisfy { FCMAction(for: $0) == .sent })
        fixture.simulator.revokeAccessTokens()
        #expect(await client.send(Self.messages(3)).allSatisfy { FCMAction(for: $0) == .sent })
        #expect(fixture.simulator.accessTokensIssued == 2)
        await client.shutdown()
        await fixture.stop()

        // Tokens that expire as they are issued: refused, refreshed, refused again.
        let expiring = try Fixture.start { $0.accessTokenLifetime = 0 }
        let refused = try expiring.client()
        let results = await refused.send(Self.messages(2))
        for result in results {
            guard case .rejected(401, _, _, _, _) = result, case .credentialsBroken = FCMAction(for: result) else {
                Issue.record("expected a broken credential, got \(result)")
                continue
            }
        }
        #expect(expiring.simulator.accessTokensIssued == 2)
        await refused.shutdown()
        await expiring.stop()
    }

    @Test func eachErrorCodeGetsItsAction() async throws {
        let fixture = try Fixture.start()
        let client = try fixture.client()
        let big = Array(#"{"data":{"k":"\#(String(repeating: "x", count: 5000))"}}"#.utf8)
        let results = await client.send([
            FCMMessage(token: "dead-1", message: Self.message),
            FCMMessage(token: "bad-1", message: Self.message),
            FCMMessage(token: "ok-1", message: Array(#"{"data":{"n":12}}"#.utf8)),
            FCMMessage(token: "ok-2", message: Array(#"{"data":{"gcm.x":"y"}}"#.utf8)),
            FCMMessage(token: "ok-3", message: big),
            FCMMessage(token: "ok-4", message: Array(#"{"android":{"ttl":"forever"}}"#.utf8)),
            FCMMessage(token: "ok-5", message: Self.message),
        ])
        let actions = results.map { FCMAction(for: $0) }
        #expect(actions[0] == .invalidateToken(reason: "UNREGISTERED"))
        #expect(actions[1] == .invalidateToken(reason: "INVALID_ARGUMENT"))
        for index in 2...5 {
            guard case let .failMessage(reason) = actions[index] else {
                Issue.record("message \(index): \(actions[index])")
                continue
            }
            #expect(reason.hasPrefix("INVALID_ARGUMENT"))
        }
        #expect(actions[6] == .sent)
        await client.shutdown()
        await fixture.stop()
    }

    @Test func overloadIsRetriedHonouringRetryAfter() async throws {
        let fixture = try Fixture.start { $0.retryAfterSeconds = 7 }
        let client = try fixture.client()
        for (rates, expected) in [(FailureRates(rate429: 1, rate500: 0, rate503: 0), FCMAction.retry(after: 7)),
                                  (FailureRates(rate429: 0, rate500: 0, rate503: 1), .retry(after: 7)),
                                  (FailureRates(rate429: 0, rate500: 1, rate503: 0), .retry(after: nil))] {
            fixture.simulator.setRates(rates)
            #expect(await client.send(Self.messages(5)).map { FCMAction(for: $0) } == Array(repeating: expected, count: 5))
        }
        fixture.simulator.setRates(FailureRates(rate429: 0, rate500: 0, rate503: 0))
        #expect(await client.send(Self.messages(5)).allSatisfy { FCMAction(for: $0) == .sent })
        await client.shutdown()
        await fixture.stop()
    }

    @Test func aTokenEndpointDownDelaysSendsUntilItIsBack() async throws {
        let fixture = try Fixture.start()
        fixture.simulator.setTokenEndpointDown(true)
        let client = try fixture.client()
        let failed = await client.send(Self.messages(3))
        #expect(failed.allSatisfy { FCMAction(for: $0) == .retry(after: nil) })
        fixture.simulator.setTokenEndpointDown(false)
        // Past the client's hold-off after a failed fetch, the next send gets a token.
        let deadline = ContinuousClock.now + .seconds(10)
        var results = await client.send(Self.messages(3))
        while !results.allSatisfy({ FCMAction(for: $0) == .sent }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            results = await client.send(Self.messages(3))
        }
        #expect(results.allSatisfy { FCMAction(for: $0) == .sent })
        await client.shutdown()
        await fixture.stop()
    }

    @Test func anAssertionSignedWithAnotherKeyBreaksTheCredential() async throws {
        let fixture = try Fixture.start()
        var impostor = fixture.account
        impostor.privateKeyPEM = try RS256Signer.generateKeyPEM()
        let client = try fixture.client(account: impostor)
        let results = await client.send(Self.messages(2))
        for result in results {
            guard case let .credentialsBroken(reason) = FCMAction(for: result) else {
                Issue.record("expected a broken credential, got \(result)")
                continue
            }
            #expect(reason.contains("invalid_grant"))
        }
        // Another project's sends are refused for that project.
        var stranger = fixture.account
        stranger.projectID = "someone-else"
        let other = try fixture.client(account: stranger)
        let denied = await other.send(Self.messages(1))
        #expect(denied.map { FCMAction(for: $0) } == [.credentialsBroken(reason: "PERMISSION_DENIED: Permission 'cloudmessaging.messages.create' denied on resource")])
        await client.shutdown()
        await other.shutdown()
        await fixture.stop()
    }
}

/// `pushrelay fcm-sim`'s flags: its own, and apns-sim's for the rest.
@Suite struct FCMSimulatorArgumentTests {
    @Test func aDemoAccountIsMadeOnceThenReused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try FCMSimulatorConfiguration.parse(arguments: [
            "--demo-account", path, "--token-lifetime=60", "--retry-after", "0", "--unregistered-prefix", "dead", "--accept-any-token",
        ])
        #expect(first.server.listen.port == 2297)
        #expect(first.server.unregisteredPrefix == "dead")
        #expect(first.accessTokenLifetime == 60 && first.retryAfterSeconds == nil)
        let account = try #require(first.serviceAccounts.first)
        #expect(account.projectID == "pushrelay-demo" && account.tokenURI == "https://127.0.0.1:2297/token")
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
        let second = try FCMSimulatorConfiguration.parse(arguments: ["--demo-account", path, "--listen", "127.0.0.1:0"])
        #expect(second.serviceAccounts == [account])
        #expect(throws: APNSSimulatorError.self) { try FCMSimulatorConfiguration.parse(arguments: []) }
        #expect(throws: APNSSimulatorError.self) { try FCMSimulatorConfiguration.parse(arguments: ["--demo-account", path, "--bogus"]) }
    }
}
