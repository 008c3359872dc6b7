import APNSClient
import Foundation
import RelayCore
import Synchronization
import Testing

/// The client against `nghttpd` over TLS on 127.0.0.1.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ClientIntegrationTests {
    static let token = String(repeating: "ab", count: 32)

    /// A token-auth configuration for `server`, with a fresh P-256 key.
    static func tokenConfiguration(_ server: NGHTTPDServer) async throws -> APNSClientConfiguration {
        let keyPath = server.directory.path("signing.p8")
        try await run(try executable("openssl"), ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyPath])
        return try APNSClientConfiguration(
            endpoint: URL(string: "https://127.0.0.1:\(server.port)")!,
            authentication: .token(keyPEM: try String(contentsOfFile: keyPath, encoding: .utf8), keyID: "KEY1234567", teamID: "TEAM123456"),
            caFile: server.caFile)
    }

    /// A token-auth client for `server`, with a fresh P-256 key.
    static func makeClient(
        _ server: NGHTTPDServer, maxConnections: Int = 2, maxInFlight: Int = 500,
        adjust: (inout APNSClientConfiguration) -> Void = { _ in }
    ) async throws -> APNSClient {
        var configuration = try await tokenConfiguration(server)
        configuration.maxConnections = maxConnections
        configuration.maxInFlight = maxInFlight
        adjust(&configuration)
        return try APNSClient(configuration: configuration, logger: Logger(label: "test", level: .error))
    }

    static func notification(token: String = token, id: UUID = UUID()) -> APNSNotification {
        APNSNotification(deviceToken: token, topic: "com.example.app", apnsID: id, payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8))
    }

    @Test func roundTripGivesTypedResults() async throws {
        try await withNGHTTPD(tokens: [Self.token]) { server in
            let client = try await Self.makeClient(server)
            let id = UUID()
            let accepted = await client.send(Self.notification(id: id))
            #expect(accepted == .accepted(apnsID: id))
            let missing = await client.send(Self.notification(token: "cd"))
            #expect(missing == .rejected(status: 404, reason: .unknown(""), timestamp: nil))
            #expect(action(for: missing) == .failPermanently(.unknown("")))
            await client.shutdown()
        }
    }

    /// Sends `count` notifications at once and counts how often each send returned.
    static func burst(_ client: APNSClient, count: Int) async -> (returns: [Int], results: [APNSResult]) {
        let ids = (0..<count).map { _ in UUID() }
        let results = await withTaskGroup(of: (Int, APNSResult).self) { group in
            for index in 0..<count {
                group.addTask { (index, await client.send(notification(id: ids[index]))) }
            }
            return await group.reduce(into: [(Int, APNSResult)]()) { $0.append($1) }
        }
        var returns = Array(repeating: 0, count: count)
        for (index, _) in results { returns[index] += 1 }
        return (returns, results.sorted { $0.0 < $1.0 }.map(\.1))
    }

    @Test(arguments: [1, 2])
    func twoThousandConcurrentSendsCompleteOnceWithinTheBounds(eventLoops: Int) async throws {
        try await withNGHTTPD(tokens: [Self.token], maxConcurrentStreams: 100) { server in
            let client = try await Self.makeClient(server, maxConnections: 4, maxInFlight: 300) { $0.eventLoopCount = eventLoops }
            let (returns, results) = await Self.burst(client, count: 2000)
            #expect(returns.allSatisfy { $0 == 1 })
            #expect(results.allSatisfy { if case .accepted = $0 { true } else { false } })
            let statistics = client.statistics
            #expect(statistics.accepted == 2000)
            #expect(statistics.inFlightHighWater <= 300)
            #expect(statistics.inFlightHighWater > 100)  // the bound was reached, so it was tested
            #expect(statistics.streamsHighWater <= 100)  // nghttpd's SETTINGS_MAX_CONCURRENT_STREAMS
            #expect(statistics.connectionsOpened >= 3 && statistics.connectionsOpened <= 4)
            #expect(statistics.inFlight == 0 && statistics.streamsOpen == 0)
            await client.shutdown()
        }
    }

    @Test func followsThePeersStreamLimit() async throws {
        try await withNGHTTPD(tokens: [Self.token], maxConcurrentStreams: 3) { server in
            let client = try await Self.makeClient(server, maxConnections: 1, maxInFlight: 50)
            let (returns, _) = await Self.burst(client, count: 200)
            #expect(returns.allSatisfy { $0 == 1 })
            #expect(client.statistics.accepted == 200)
            #expect(client.statistics.streamsHighWater == 3)
            await client.shutdown()
        }
    }

    @Test func serverKilledMidBurstLosesAndDoublesNothing() async throws {
        try await withNGHTTPD(tokens: [Self.token]) { server in
            let client = try await Self.makeClient(server, maxConnections: 2, maxInFlight: 400) {
                $0.reconnectDelay = 0.02
                $0.maxReconnectDelay = 0.2
                $0.maxConnectFailures = 1000
                $0.maxAttempts = 10
            }
            let count = 10000
            async let outcome = Self.burst(client, count: count)
            try await poll(every: .milliseconds(1)) { client.statistics.accepted >= 1000 }
            // Freeze the server so requests are surely on the wire, then kill it under them.
            server.pause()
            try await poll { client.statistics.streamsOpen >= 100 }
            try await server.kill()
            try await poll { client.statistics.connectionFailures >= 2 }  // it is trying to reconnect
            try await server.start()
            let (returns, results) = await outcome
            #expect(returns.allSatisfy { $0 == 1 })
            let accepted = results.filter { if case .accepted = $0 { true } else { false } }.count
            #expect(accepted == count, "not accepted: \(Set(results.filter { if case .accepted = $0 { false } else { true } }.map { "\($0)" }))")
            // Streams were open when the server froze; answers it had already written may
            // still arrive, so how many needed a re-send varies — but some always do.
            #expect(client.statistics.retried > 0)
            #expect(client.statistics.streamsOpen == 0)
            await client.shutdown()
        }
    }

    @Test func untrustedServerCertificateFailsTheSend() async throws {
        try await withNGHTTPD(tokens: [Self.token]) { server in
            let client = try await Self.makeClient(server) {
                $0.caFile = nil
                $0.maxConnectFailures = 2
                $0.reconnectDelay = 0.01
            }
            let result = await client.send(Self.notification())
            if case let .failed(.connectionFailed(detail)) = result {
                #expect(detail.contains("certificate"))
            } else {
                Issue.record("expected a connection failure, got \(result)")
            }
            await client.shutdown()
        }
    }

    @Test func nothingListeningFailsAfterTheConnectAttempts() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyPath = directory.path("signing.p8")
        try await run(try executable("openssl"), ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyPath])
        var configuration = try APNSClientConfiguration(
            endpoint: URL(string: "https://127.0.0.1:\(try freePort())")!,
            authentication: .token(keyPEM: try String(contentsOfFile: keyPath, encoding: .utf8), keyID: "K", teamID: "T"))
        configuration.maxConnectFailures = 3
        configuration.reconnectDelay = 0.01
        let client = try APNSClient(configuration: configuration, logger: Logger(label: "test", level: .critical))
        let started = Date()
        let results = await withTaskGroup(of: APNSResult.self) { group in
            for _ in 0..<20 { group.addTask { await client.send(Self.notification()) } }
            return await group.reduce(into: [APNSResult]()) { $0.append($1) }
        }
        #expect(results.count == 20)
        #expect(results.allSatisfy { if case .failed(.connectionFailed) = $0 { true } else { false } })
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(client.statistics.connectionFailures >= 3)
        await client.shutdown()
    }

    @Test func expiredNotificationsAreNotSent() async throws {
        try await withNGHTTPD(tokens: [Self.token]) { server in
            let client = try await Self.makeClient(server)
            var notification = Self.notification()
            notification.expiration = Int(Date().timeIntervalSince1970) - 10
            #expect(await client.send(notification) == .failed(.expired))
            notification.expiration = 0  // "deliver once now" is never expired
            #expect(await client.send(notification) == .accepted(apnsID: notification.apnsID))
            await client.shutdown()
        }
    }

    @Test func invalidNotificationsAndSendsAfterShutdownFailWithoutARoundTrip() async throws {
        try await withNGHTTPD(tokens: [Self.token]) { server in
            let client = try await Self.makeClient(server)
            var notification = Self.notification()
            notification.pushType = .background
            #expect(await client.send(notification) == .failed(.invalid(.backgroundNeedsPriority5)))
            await client.shutdown()
            #expect(await client.send(Self.notification()) == .failed(.shutdown))
            #expect(client.statistics.connectionsOpened == 0)
        }
    }
}
