import APNSClient
import APNSSimulator
import Foundation
import RelayCore
import Synchronization
import Testing
import TestSupport

/// A clock the test moves, for provider token ages (`set`) and the client's intervals (`skip`).
final class MovableClock: APNSClock {
    private let current: Mutex<Date>
    private let skipped = Mutex(Duration.zero)
    init(_ start: Date = Date()) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    var instant: ContinuousClock.Instant { .now + skipped.withLock { $0 } }
    func set(_ date: Date) { current.withLock { $0 = date } }
    func skip(_ duration: Duration) { skipped.withLock { $0 += duration } }
}

/// Our APNs client against our simulator, over TLS on 127.0.0.1: results, actions, the
/// stream limit, provider tokens, GOAWAY and a simulator killed mid-burst.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ClientInteropTests {
    static let keyID = "KEYID00001"
    static let teamID = "TEAMID0001"
    static let topic = "com.example.app"

    /// The n-th device token: 64 hex digits, distinct per n.
    static func token(_ n: Int, prefix: String = "") -> String {
        let digits = String(n, radix: 16)
        return prefix + String(repeating: "0", count: 64 - prefix.count - digits.count) + digits
    }

    static func payload(size: Int? = nil) -> [UInt8] {
        let base = #"{"aps":{"alert":"hi"},"p":""}"#
        guard let size else { return Array(base.utf8) }
        return Array((#"{"aps":{"alert":"hi"},"p":""# + String(repeating: "x", count: size - base.utf8.count) + #""}"#).utf8)
    }

    static func notification(_ token: String, pushType: APNSPushType = .alert, payload: [UInt8] = payload()) -> APNSNotification {
        APNSNotification(
            deviceToken: token, topic: pushType == .voip ? topic + ".voip" : topic, pushType: pushType, payload: payload)
    }

    /// A simulator on 127.0.0.1 and the scratch directory with its certificate.
    final class Simulator {
        let simulator: APNSSimulator
        let port: Int
        let certificatePath: String

        init(
            port: Int = 0, directory: URL, certificateAndKey: (String, String)? = nil,
            _ configure: (inout APNSSimulatorConfiguration) -> Void
        ) throws {
            var configuration = APNSSimulatorConfiguration()
            configuration.listen = .init(host: "127.0.0.1", port: port)
            if let (certificate, key) = certificateAndKey {
                configuration.certificatePath = certificate
                configuration.keyPath = key
                certificatePath = certificate
            } else {
                certificatePath = directory.appendingPathComponent("simulator-\(UUID().uuidString).pem").path
                configuration.writeCertificatePath = certificatePath
            }
            configure(&configuration)
            simulator = try APNSSimulator(configuration: configuration, logger: Logger(label: "apns-sim", level: .warning))
            self.port = try simulator.start().port
        }
    }

    /// A scratch directory and the signing key the simulator trusts, for one test.
    final class Fixture {
        let directory: URL
        let key = TestSigningKey()

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-interop-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// A simulator that checks JWTs signed by `key`.
        func simulator(
            port: Int = 0, certificateAndKey: (String, String)? = nil,
            _ configure: (inout APNSSimulatorConfiguration) -> Void = { _ in }
        ) throws -> Simulator {
            try Simulator(port: port, directory: directory, certificateAndKey: certificateAndKey) { configuration in
                configuration.jwtKeys = [ClientInteropTests.keyID: key.publicPEM]
                configure(&configuration)
            }
        }

        func client(
            _ simulator: Simulator, authentication: APNSClientConfiguration.Authentication? = nil,
            clock: any APNSClock = SystemClock(), adjust: (inout APNSClientConfiguration) -> Void = { _ in }
        ) throws -> APNSClient {
            var configuration = try APNSClientConfiguration(
                endpoint: URL(string: "https://127.0.0.1:\(simulator.port)")!,
                authentication: authentication
                    ?? .token(keyPEM: key.privatePEM, keyID: ClientInteropTests.keyID, teamID: ClientInteropTests.teamID),
                caFile: simulator.certificatePath)
            configuration.reconnectDelay = 0.01
            adjust(&configuration)
            return try APNSClient(configuration: configuration, logger: Logger(label: "apns-client", level: .error), clock: clock)
        }

        /// A self-signed certificate and key for 127.0.0.1, to serve from two simulators in turn.
        func certificateAndKey() async throws -> (String, String) {
            let certificate = directory.appendingPathComponent("server.crt").path
            let key = directory.appendingPathComponent("server.key").path
            let made = try await ExternalTool.run("/usr/bin/openssl", [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
                "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
            guard made.status == 0 else { throw APNSSimulatorError("openssl req failed: \(made.output)") }
            return (certificate, key)
        }
    }

    /// Sends every notification at once; how often each send returned, and the results in order.
    static func burst(_ client: APNSClient, _ notifications: [APNSNotification]) async -> (returns: [Int], results: [APNSResult]) {
        let results = await withTaskGroup(of: (Int, APNSResult).self) { group in
            for (index, notification) in notifications.enumerated() {
                group.addTask { (index, await client.send(notification)) }
            }
            return await group.reduce(into: [(Int, APNSResult)]()) { $0.append($1) }
        }
        var returns = Array(repeating: 0, count: notifications.count)
        for (index, _) in results { returns[index] += 1 }
        return (returns, results.sorted { $0.0 < $1.0 }.map(\.1))
    }

    static func isAccepted(_ result: APNSResult) -> Bool {
        if case .accepted = result { true } else { false }
    }

    static func poll(timeout: Double = 20, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw APNSSimulatorError("condition not met within \(timeout) s") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    // MARK: results and actions

    @Test func acceptedWithTheClientsJWTCheckedByTheSimulator() async throws {
        let fixture = try Fixture()
        let server = try fixture.simulator()
        let client = try fixture.client(server)
        var notification = Self.notification(Self.token(1))
        notification.collapseID = "score"
        notification.expiration = 0
        let result = await client.send(notification)
        #expect(result == .accepted(apnsID: notification.apnsID))
        #expect(action(for: result) == .sent)
        let delivered = server.simulator.deliveries(token: Self.token(1))
        #expect(delivered.count == 1)
        #expect(delivered.first?.apnsID.lowercased() == notification.apnsID.uuidString.lowercased(), "our apns-id arrived")
        #expect(delivered.first?.topic == Self.topic)
        #expect(delivered.first?.pushType == "alert")
        #expect(delivered.first?.payload == notification.payload)
        #expect(server.simulator.stats.accepted == 1)
        #expect(server.simulator.stats.rejectedTotal == 0, "the JWT passed the signature check")
        await client.shutdown()
        await server.simulator.shutdown()
    }

    /// APNs next door, then 200 ms away (the simulator's latency changed while the client
    /// was quiet): the next send after the quiet spell PINGs first, and that round trip is
    /// the base at once, not after the 10–20 s the least of the old path takes to expire.
    @Test func aPathThatGotLongerIsTheBaseRoundTripAtTheNextSend() async throws {
        let fixture = try Fixture()
        let server = try fixture.simulator()
        let clock = MovableClock()
        let client = try fixture.client(server, clock: clock)
        #expect(Self.isAccepted(await client.send(Self.notification(Self.token(1)))))
        try await Self.poll { client.statistics.baseRoundTripMilliseconds > 0 }
        #expect(client.statistics.baseRoundTripMilliseconds < 100)
        server.simulator.setNetwork(NetworkShape(latencyMilliseconds: 200))
        // Past the PINGs' spacing (a quiet app pings at most once per 2 s).
        clock.skip(.seconds(3))
        #expect(Self.isAccepted(await client.send(Self.notification(Self.token(2)))))
        try await Self.poll { client.statistics.baseRoundTripMilliseconds >= 200 }
        await client.shutdown()
        await server.simulator.shutdown()
    }

    /// Rejections the simulator acts out for requests our client does send.
    @Test func rejectionsComeBackTypedWithTheirActions() async throws {
        let fixture = try Fixture()
        let server = try fixture.simulator {
            $0.badTokenPrefix = "bad0"
            $0.unregisteredPrefix = "dead"
        }
        let client = try fixture.client(server)
        let badPrefix = await client.send(Self.notification(Self.token(1, prefix: "bad0")))
        #expect(badPrefix == .rejected(status: 400, reason: .badDeviceToken, timestamp: nil))
        #expect(action(for: badPrefix) == .invalidateToken(since: nil))

        // Even-length hex passes our check; the simulator wants 64 to 200 digits, as APNs does.
        let short = await client.send(Self.notification("abcd"))
        #expect(short == .rejected(status: 400, reason: .badDeviceToken, timestamp: nil))

        let before = Date()
        let gone = await client.send(Self.notification(Self.token(2, prefix: "dead")))
        let after = Date()
        guard case let .rejected(410, reason, timestamp?) = gone else {
            Issue.record("expected 410 with a timestamp, got \(gone)")
            return
        }
        #expect(reason == .unregistered)
        #expect(timestamp.timeIntervalSince1970 >= (before.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        #expect(timestamp <= after)
        #expect(action(for: gone) == .invalidateToken(since: timestamp))

        let noAPS = await client.send(Self.notification(Self.token(3), payload: Array(#"{"alert":"hi"}"#.utf8)))
        #expect(noAPS == .rejected(status: 400, reason: .unknown("BadPayload"), timestamp: nil))
        #expect(action(for: noAPS) == .failPermanently(.unknown("BadPayload")))

        let stats = server.simulator.stats
        #expect(stats.accepted == 0)
        #expect(stats.rejected == ["BadDeviceToken": 2, "Unregistered": 1, "BadPayload": 1])
        await client.shutdown()
        await server.simulator.shutdown()
    }

    enum Scripted: String, CaseIterable { case r429, r500, r503 }

    @Test(arguments: Scripted.allCases)
    func scriptedFailuresMapToRetries(_ scripted: Scripted) async throws {
        let fixture = try Fixture()
        let server = try fixture.simulator {
            switch scripted {
            case .r429: $0.rate429 = 1
            case .r500: $0.rate500 = 1
            case .r503: $0.rate503 = 1
            }
        }
        let client = try fixture.client(server)
        let (returns, results) = await Self.burst(client, (0..<20).map { Self.notification(Self.token($0)) })
        #expect(returns.allSatisfy { $0 == 1 })
        let expected: (APNSResult, APNSAction) = switch scripted {
        case .r429: (.rejected(status: 429, reason: .tooManyRequests, timestamp: nil), .retryWithBackoff)
        case .r500: (.rejected(status: 500, reason: .internalServerError, timestamp: nil), .retryWithBackoff)
        case .r503: (.rejected(status: 503, reason: .serviceUnavailable, timestamp: nil), .retryWithBackoff)
        }
        #expect(results.allSatisfy { $0 == expected.0 }, "\(Set(results.map { "\($0)" }))")
        #expect(results.allSatisfy { action(for: $0) == expected.1 })
        #expect(server.simulator.stats.rejectedTotal == 20)
        await client.shutdown()
        await server.simulator.shutdown()
    }

    @Test func aKeyTheSimulatorDoesNotKnowBreaksTheCredentials() async throws {
        let fixture = try Fixture()
        let server = try fixture.simulator()
        let other = TestSigningKey()
        let client = try fixture.client(server, authentication: .token(keyPEM: other.privatePEM, keyID: Self.keyID, teamID: Self.teamID))
        let result = await client.send(Self.notification(Self.token(1)))
        #expect(result == .rejected(status: 403, reason: .invalidProviderToken, timestamp: nil))
        #expect(action(for: result) == .credentialsBroken(.invalidProviderToken))
        await client.shutdown()
        await server.simulator.shutdown()
    }

    @Test func aCertificateClientWithoutATokenIsMissingOne() async throws {
        let fixture = try Fixture()
        let server = try fixture.simulator()
        let (certificate, key) = try await fixture.certificateAndKey()
        let client = try fixture.client(server, authentication: .certificate(
            certificatePEM: try String(contentsOfFile: certificate, encoding: .utf8), keyPEM: try String(contentsOfFile: key, encoding: .utf8)))
        let result = await client.send(Self.notification(Self.token(1)))
        #expect(result == .rejected(status: 403, reason: .missingProviderToken, timestamp: nil))
        #expect(action(for: result) == .credentialsBroken(.missingProviderToken))
        await client.shutdown()
        await server.simulator.shutdown()
    }

    @Test func certificateModeTakesACertificateClientAndRefusesTokens() async throws {
        let fixture = try Fixture()
        let server = try Simulator(directory: fixture.directory) { _ in }  // no JWT keys: certificate mode
        let (certificate, key) = try await fixture.certificateAndKey()
        let withCertificate = try fixture.client(server, authentication: .certificate(
            certificatePEM: try String(contentsOfFile: certificate, encoding: .utf8), keyPEM: try String(contentsOfFile: key, encoding: .utf8)))
        #expect(Self.isAccepted(await withCertificate.send(Self.notification(Self.token(1)))))
        let withToken = try fixture.client(server)
        let refused = await withToken.send(Self.notification(Self.token(2)))
        #expect(refused == .rejected(status: 403, reason: .invalidProviderToken, timestamp: nil))
        #expect(server.simulator.stats.accepted == 1)
        await withCertificate.shutdown()
        await withToken.shutdown()
        await server.simulator.shutdown()
    }

    @Test func anHourOldTokenIsExpiredUntilTheClockRotatesIt() async throws {
        let fixture = try Fixture()
        let server = try fixture.simulator()
        let now = Date()
        let clock = MovableClock(now.addingTimeInterval(-2 * 3600))
        let client = try fixture.client(server, clock: clock)
        let stale = await client.send(Self.notification(Self.token(1)))
        #expect(stale == .rejected(status: 403, reason: .expiredProviderToken, timestamp: nil))
        #expect(action(for: stale) == .refreshTokenAndRetry)
        clock.set(now)  // the token is two hours old by the client's clock too: rotated
        #expect(Self.isAccepted(await client.send(Self.notification(Self.token(1)))))
        #expect(server.simulator.stats.rejected == ["ExpiredProviderToken": 1])
        await client.shutdown()
        await server.simulator.shutdown()
    }

    /// Every reason the simulator answers with (its validator, token verifier and scripted behaviours).
    static let simulatorReasons: [APNSReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .duplicateHeaders,
        .invalidPushType, .missingDeviceToken, .missingTopic, .payloadEmpty, .badPayload, .expiredProviderToken,
        .invalidProviderToken, .missingProviderToken, .badPath, .methodNotAllowed, .unregistered, .payloadTooLarge,
        .tooManyRequests, .tooManyProviderTokenUpdates, .internalServerError, .serviceUnavailable,
    ]

    /// Every reason the simulator can answer, as our client reads it: the contract between
    /// the two halves, status and body, mapped to the action in apns.md.
    @Test(arguments: simulatorReasons)
    func everySimulatorReasonReadsAsItsAction(_ reason: APNSReason) {
        let response = APNSResponse(reason: reason, timestamp: reason == .unregistered ? 1_700_000_000_123 : nil)
        let result = APNSResult(status: response.status, apnsID: nil, body: response.body, sentID: UUID())
        guard case let .rejected(status, read, timestamp) = result else {
            Issue.record("\(reason) read as \(result)")
            return
        }
        #expect(status == reason.status)
        #expect(read.description == reason.description)
        #expect(reason == .badPayload || read != .unknown(reason.description), "the client knows \(reason)")
        let expected: APNSAction? = switch reason {
        case .badDeviceToken: .invalidateToken(since: nil)
        case .unregistered: .invalidateToken(since: Date(timeIntervalSince1970: 1_700_000_000.123))
        case .expiredProviderToken: .refreshTokenAndRetry
        case .invalidProviderToken, .missingProviderToken: .credentialsBroken(read)
        case .payloadTooLarge: .failMessage("PayloadTooLarge")
        case .tooManyProviderTokenUpdates: .keepTokenRetryLater
        case .tooManyRequests, .internalServerError, .serviceUnavailable: .retryWithBackoff
        case .badCollapseId, .badExpirationDate, .badMessageId, .badPriority, .duplicateHeaders, .invalidPushType,
             .missingDeviceToken, .missingTopic, .payloadEmpty, .badPayload, .badPath, .methodNotAllowed:
            .failPermanently(read)
        default: nil
        }
        #expect(expected != nil, "no expected action for \(reason)")
        #expect(action(for: result) == expected)
        if reason == .unregistered {
            #expect(timestamp == Date(timeIntervalSince1970: 1_700_000_000.123))
        }
    }

    // MARK: limits

    @Test func payloadLimitsAreCheckedBeforeSending() async throws {
        let fixture = try Fixture()
        let server = try fixture.simulator()
        let client = try fixture.client(server)
        #expect(Self.isAccepted(await client.send(Self.notification(Self.token(1), payload: Self.payload(size: 4096)))))
        #expect(Self.isAccepted(await client.send(Self.notification(Self.token(2), pushType: .voip, payload: Self.payload(size: 5120)))))
        #expect(await client.send(Self.notification(Self.token(3), payload: Self.payload(size: 4097)))
            == .failed(.invalid(.payloadTooLarge(size: 4097, limit: 4096))))
        #expect(await client.send(Self.notification(Self.token(4), pushType: .voip, payload: Self.payload(size: 5121)))
            == .failed(.invalid(.payloadTooLarge(size: 5121, limit: 5120))))
        let stats = server.simulator.stats
        #expect(stats.accepted == 2)
        #expect(stats.streams == 2, "the oversized ones never went out")
        #expect(server.simulator.deliveries(token: Self.token(1)).first?.payload.count == 4096)
        await client.shutdown()
        await server.simulator.shutdown()
    }

    @Test func theSimulatorsStreamLimitIsObeyed() async throws {
        let fixture = try Fixture()
        let server = try fixture.simulator { $0.maxConcurrentStreams = 5 }
        let client = try fixture.client(server) {
            $0.maxConnections = 2
            $0.maxInFlight = 200
        }
        let (returns, results) = await Self.burst(client, (0..<1000).map { Self.notification(Self.token($0)) })
        #expect(returns.allSatisfy { $0 == 1 })
        #expect(results.allSatisfy(Self.isAccepted))
        let statistics = client.statistics
        #expect(statistics.streamsHighWater == 5, "at most 5 streams open on a connection, and the limit was reached")
        #expect(statistics.connectionsOpened == 2, "a full connection made the client open another")
        #expect(server.simulator.stats.accepted == 1000)
        #expect(server.simulator.stats.rejectedTotal == 0, "no stream was refused for going over the limit")
        await client.shutdown()
        await server.simulator.shutdown()
    }

    // MARK: connections that end under a burst

    @Test func goawayMidBurstLosesAndDoublesNothing() async throws {
        let fixture = try Fixture()
        let server = try fixture.simulator { $0.goawayAfter = 150 }
        let client = try fixture.client(server) {
            $0.maxConnections = 2
            $0.maxInFlight = 500
        }
        let count = 3000
        let (returns, results) = await Self.burst(client, (0..<count).map { Self.notification(Self.token($0)) })
        #expect(returns.allSatisfy { $0 == 1 }, "every send returned exactly once")
        let batched = await client.send((count..<2 * count).map { Self.notification(Self.token($0)) })
        #expect(batched.count == count)
        let failures = Set((results + batched).filter { !Self.isAccepted($0) }.map { "\($0)" })
        #expect(failures.isEmpty, "\(failures)")
        let stats = server.simulator.stats
        #expect(stats.accepted == 2 * count, "the simulator delivered each notification exactly once")
        #expect(stats.goaways >= 2 * count / 150 - 1)
        #expect(client.statistics.accepted == 2 * count)
        await client.shutdown()
        await server.simulator.shutdown()
    }

    @Test func simulatorKilledMidBurstLosesNothing() async throws {
        let fixture = try Fixture()
        let pair = try await fixture.certificateAndKey()
        let count = 6000
        let first = try fixture.simulator(certificateAndKey: pair) { $0.maxRecordedTokens = count }
        let client = try fixture.client(first) {
            $0.maxConnections = 2
            $0.maxInFlight = 400
            $0.reconnectDelay = 0.02
            $0.maxReconnectDelay = 0.1
            $0.maxConnectFailures = 1000
            $0.maxAttempts = 10
        }
        async let outcome = Self.burst(client, (0..<count).map { Self.notification(Self.token($0)) })
        try await Self.poll { first.simulator.stats.accepted >= 1000 }
        await first.simulator.shutdown()
        try await Self.poll { client.statistics.connectionFailures >= 1 }  // reconnecting to a closed port
        // The old listener's port may take a moment to be free again on a loaded machine:
        // retry the start (bounded) rather than leave the burst waiting for a server forever.
        var restarted: Simulator?
        let deadline = Date().addingTimeInterval(20)
        while restarted == nil {
            do {
                restarted = try fixture.simulator(port: first.port, certificateAndKey: pair) { $0.maxRecordedTokens = count }
            } catch where Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let second = restarted!
        let (returns, results) = await outcome
        #expect(returns.allSatisfy { $0 == 1 }, "every send returned exactly once")
        let failures = Set(results.filter { !Self.isAccepted($0) }.map { "\($0)" })
        #expect(failures.isEmpty, "\(failures)")
        let delivered = Set(first.simulator.deliveries().map(\.token)).union(second.simulator.deliveries().map(\.token))
        #expect(delivered.count == count, "every notification reached a simulator")
        #expect(client.statistics.retried > 0, "requests were on the wire when the first simulator died")
        // A response the dying simulator wrote but never sent makes the client send again:
        // APNs' delivery is at least once. Those are the only doubles, and they are few.
        let doubled = first.simulator.stats.accepted + second.simulator.stats.accepted - count
        #expect(doubled >= 0 && doubled <= 400, "doubled: \(doubled)")
        await client.shutdown()
        await second.simulator.shutdown()
    }

    // MARK: volume

    /// The benchmark's path at a size `make test` affords, through the batch API as the
    /// push workers and `apns-send --count` use it: four batches at once, each result in
    /// its notification's place, every notification delivered once. Not a timing test.
    @Test func twentyThousandNotificationsInBatchesAreAllAccountedFor() async throws {
        let fixture = try Fixture()
        let count = 20_000
        let server = try fixture.simulator {
            $0.maxRecordedTokens = count
            $0.unregisteredPrefix = "dead"
        }
        let client = try fixture.client(server) {
            $0.maxConnections = 2
            $0.maxInFlight = 1000
        }
        // Every 1000th token is dead and every 1000th (offset 500) payload is invalid, so a
        // result in the wrong place shows.
        func notification(_ n: Int) -> APNSNotification {
            if n % 1000 == 500 { return Self.notification(Self.token(n), payload: []) }
            return Self.notification(Self.token(n, prefix: n % 1000 == 0 ? "dead" : ""))
        }
        let batches = await withTaskGroup(of: (Int, [APNSResult]).self) { group in
            for batch in 0..<4 {
                group.addTask { (batch, await client.send((batch * 5000..<(batch + 1) * 5000).map(notification))) }
            }
            return await group.reduce(into: [Int: [APNSResult]]()) { $0[$1.0] = $1.1 }
        }
        let results = (0..<4).flatMap { batches[$0] ?? [] }
        #expect(results.count == count)
        for (n, result) in results.enumerated() {
            let expected: Bool = switch n % 1000 {
            case 0: if case .rejected(410, .unregistered, _) = result { true } else { false }
            case 500: result == .failed(.invalid(.payloadEmpty))
            default: Self.isAccepted(result)
            }
            if !expected {
                Issue.record("notification \(n): \(result)")
                break
            }
        }
        let stats = server.simulator.stats
        #expect(stats.accepted == count - 40)
        #expect(stats.rejected == ["Unregistered": 20])
        #expect(Set(server.simulator.deliveries().map(\.token)).count == count - 40)
        let statistics = client.statistics
        #expect(statistics.inFlightHighWater == 1000, "the window was filled and never exceeded")
        #expect(statistics.inFlight == 0 && statistics.streamsOpen == 0)
        await client.shutdown()
        await server.simulator.shutdown()
    }
}
