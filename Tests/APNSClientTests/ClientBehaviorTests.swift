import APNSClient
import Foundation
import RelayCore
import Synchronization
import Testing

/// The client against a scripted HTTP/2 server: GOAWAY, refused streams, dropped
/// connections, provider token refresh, timeouts, certificate auth, PING.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ClientBehaviorTests {
    static let token = String(repeating: "cd", count: 32)

    /// A certificate and key for 127.0.0.1 (or any common name) in `directory`.
    static func makeCertificate(_ directory: TemporaryDirectory, name: String) async throws -> (certificate: String, key: String) {
        let certificate = directory.path("\(name).crt")
        let key = directory.path("\(name).key")
        try await run(try executable("openssl"), [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
            "-out", certificate, "-days", "2", "-subj", "/CN=\(name)", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        return (certificate, key)
    }

    /// A server answering with `handler`, and a client configured for it; the server and its
    /// files go away with the fixture, however the test ends.
    final class Fixture {
        let directory: TemporaryDirectory
        let server: ScriptedHTTP2Server
        private(set) var client: APNSClient!
        let clock = TestClock(Date())

        init(
            maxConcurrentStreams: UInt32 = 100, clientCertificate: Bool = false, requireClientCertificate: Bool = false,
            adjust: (inout APNSClientConfiguration) -> Void = { _ in }, handler: @escaping ScriptedHTTP2Server.Handler
        ) async throws {
            directory = try TemporaryDirectory()
            do {
                let serverCertificate = try await makeCertificate(directory, name: "server")
                server = try ScriptedHTTP2Server(
                    certificate: serverCertificate.certificate, key: serverCertificate.key,
                    maxConcurrentStreams: maxConcurrentStreams, requireClientCertificate: requireClientCertificate,
                    handler: handler)
            } catch {
                directory.remove()
                throw error
            }
            let authentication: APNSClientConfiguration.Authentication
            if clientCertificate {
                let pair = try await makeCertificate(directory, name: "com.example.app")
                authentication = .certificate(certificatePEM: try String(contentsOfFile: pair.certificate, encoding: .utf8),
                                              keyPEM: try String(contentsOfFile: pair.key, encoding: .utf8))
            } else {
                authentication = .token(keyPEM: try await ProviderTokenTests.makeKey(directory), keyID: "KEYID12345", teamID: "TEAMID6789")
            }
            var configuration = try APNSClientConfiguration(
                endpoint: URL(string: "https://127.0.0.1:\(server.port)")!, authentication: authentication,
                caFile: directory.path("server.crt"))
            configuration.reconnectDelay = 0.01
            adjust(&configuration)
            client = try APNSClient(configuration: configuration, logger: Logger(label: "test", level: .error), clock: clock)
        }

        /// Lets go of the client without shutting it down.
        func dropClient() {
            client = nil
        }

        /// Shuts the client down gracefully; the rest goes in `deinit`.
        func tearDown() async {
            await client?.shutdown()
        }

        deinit {
            server.stop()
            directory.remove()
        }
    }

    static func notification(id: UUID = UUID()) -> APNSNotification {
        APNSNotification(deviceToken: token, topic: "com.example.app", apnsID: id, payload: Array(#"{"aps":{}}"#.utf8))
    }

    static func sendAll(_ client: APNSClient, _ ids: [UUID]) async -> [UUID: [APNSResult]] {
        await withTaskGroup(of: (UUID, APNSResult).self) { group in
            for id in ids { group.addTask { (id, await client.send(notification(id: id))) } }
            return await group.reduce(into: [UUID: [APNSResult]]()) { $0[$1.0, default: []].append($1.1) }
        }
    }

    static func apnsIDs(_ requests: [ScriptedHTTP2Server.Request]) -> [UUID] {
        requests.compactMap { $0.headers["apns-id"].flatMap(UUID.init(uuidString:)) }
    }

    @Test func requestsCarryTheAPNsHeadersAndBody() async throws {
        let fixture = try await Fixture { _ in .respond(status: 200) }
        let id = UUID()
        #expect(await fixture.client.send(Self.notification(id: id)) == .accepted(apnsID: id))
        let request = try #require(fixture.server.requests.first)
        #expect(request.headers[":method"] == "POST")
        #expect(request.path == "/3/device/\(Self.token)")
        #expect(request.headers[":authority"] == "127.0.0.1:\(fixture.server.port)")
        #expect(request.headers["apns-topic"] == "com.example.app")
        #expect(request.headers["apns-push-type"] == "alert")
        #expect(request.headers["apns-priority"] == "10")
        #expect(request.headers["apns-id"] == id.uuidString.lowercased())
        #expect(request.headers["authorization"]?.hasPrefix("bearer ey") == true)
        #expect(request.body == Array(#"{"aps":{}}"#.utf8))
        await fixture.tearDown()
    }

    @Test func goAwayResendsTheUnprocessedOnANewConnectionWithTheSameIDs() async throws {
        let fixture = try await Fixture { request in
            // The 10th request on the first connection gets a GOAWAY that excludes it.
            if request.connection == 1, request.streamID == 19 { return .goAway }
            return .respond(status: 200)
        }
        let ids = (0..<60).map { _ in UUID() }
        let results = await Self.sendAll(fixture.client, ids)
        #expect(results.count == 60)
        for id in ids { #expect(results[id] == [.accepted(apnsID: id)]) }
        let requests = fixture.server.requests
        #expect(Set(requests.map(\.connection)).count >= 2)
        let resent = Self.apnsIDs(requests.filter { $0.connection == 1 && $0.streamID >= 19 })
        let later = Set(Self.apnsIDs(requests.filter { $0.connection > 1 }))
        #expect(!resent.isEmpty)
        #expect(resent.allSatisfy(later.contains))
        await fixture.tearDown()
    }

    @Test func refusedStreamsAreSentAgain() async throws {
        let seen = Mutex<Set<String>>([])
        let fixture = try await Fixture { request in
            let first = seen.withLock { $0.insert(request.headers["apns-id"] ?? "").inserted }
            return first ? .refuse : .respond(status: 200)
        }
        let ids = (0..<20).map { _ in UUID() }
        let results = await Self.sendAll(fixture.client, ids)
        for id in ids { #expect(results[id] == [.accepted(apnsID: id)]) }
        let counts = Dictionary(grouping: Self.apnsIDs(fixture.server.requests), by: { $0 }).mapValues(\.count)
        #expect(counts.count == 20 && counts.values.allSatisfy { $0 == 2 })
        await fixture.tearDown()
    }

    /// A request the server's HTTP/2 layer refuses for its content (issue 22 §4: nghttp2
    /// refusing a header) fails for good at once: sent once, never retried as a connection
    /// failure, and the connection goes on serving the others.
    @Test func aStreamResetAsMalformedFailsForGood() async throws {
        let malformed = UUID()
        let fixture = try await Fixture { request in
            request.headers["apns-id"] == malformed.uuidString.lowercased() ? .resetAsMalformed : .respond(status: 200)
        }
        let others = (0..<5).map { _ in UUID() }
        let results = await Self.sendAll(fixture.client, [malformed] + others)
        #expect(results[malformed] == [.failed(.refused("the server reset the stream with PROTOCOL_ERROR"))])
        #expect(APNSAction(for: results[malformed]![0]) == .failMessage("refused: the server reset the stream with PROTOCOL_ERROR"))
        for id in others { #expect(results[id] == [.accepted(apnsID: id)]) }
        #expect(Self.apnsIDs(fixture.server.requests).filter { $0 == malformed }.count == 1, "sent once")
        #expect(fixture.client.statistics.retried == 0)
        await fixture.tearDown()
    }

    /// A header value nghttp2 would refuse never leaves the client.
    @Test func aCollapseIDWithAControlCharacterIsNeverSent() async throws {
        let fixture = try await Fixture { _ in .respond(status: 200) }
        var notification = Self.notification(id: UUID())
        notification.collapseID = "a\r\nb"
        #expect(await fixture.client.send(notification)
            == .failed(.invalid(.badHeaderValue(name: "apns-collapse-id", problem: "contains a control character (0x0D); header values may not"))))
        #expect(fixture.server.requests.isEmpty)
        await fixture.tearDown()
    }

    @Test func aDroppedConnectionsStreamsAreRetriedOnceEach() async throws {
        let fixture = try await Fixture { request in
            request.connection == 1 && request.streamID == 41 ? .dropConnection : .respond(status: 200)
        }
        let ids = (0..<100).map { _ in UUID() }
        let results = await Self.sendAll(fixture.client, ids)
        for id in ids { #expect(results[id] == [.accepted(apnsID: id)]) }
        #expect(fixture.client.statistics.retried > 0)
        await fixture.tearDown()
    }

    @Test func tooManyDeathsFailTheRequestOnce() async throws {
        let fixture = try await Fixture(adjust: { $0.maxAttempts = 3 }) { _ in .dropConnection }
        let result = await fixture.client.send(Self.notification())
        if case .failed(.connectionFailed) = result {} else { Issue.record("expected a connection failure, got \(result)") }
        #expect(fixture.server.requests.count == 3)
        // Connections that die before answering anything count as failed attempts (backoff).
        #expect(fixture.client.statistics.connectionFailures == 3)
        await fixture.tearDown()
    }

    @Test func expiredProviderTokenIsRefreshedOnceTheTwentyMinutesHavePassed() async throws {
        let firstToken = Mutex<String?>(nil)
        let fixture = try await Fixture { request in
            let token = request.headers["authorization"] ?? ""
            let first = firstToken.withLock { first in
                if first == nil { first = token }
                return first == token
            }
            return first ? .respond(status: 403, body: #"{"reason":"ExpiredProviderToken"}"#) : .respond(status: 200)
        }
        // The token is brand new: APNs must not be asked to take another yet.
        let young = await fixture.client.send(Self.notification())
        #expect(young == .rejected(status: 403, reason: .expiredProviderToken, timestamp: nil))
        #expect(action(for: young) == .refreshTokenAndRetry)
        #expect(fixture.server.requests.count == 1)
        fixture.clock.advance(minutes: 21)
        let id = UUID()
        #expect(await fixture.client.send(Self.notification(id: id)) == .accepted(apnsID: id))
        let last = fixture.server.requests.suffix(2)
        #expect(last.map { $0.headers["apns-id"] } == [id.uuidString.lowercased(), id.uuidString.lowercased()])
        #expect(Set(last.map { $0.headers["authorization"] }).count == 2)
        await fixture.tearDown()
    }

    @Test func unregisteredCarriesItsTimestamp() async throws {
        let fixture = try await Fixture { _ in
            .respond(status: 410, headers: ["content-type": "application/json"], body: #"{"reason":"Unregistered","timestamp":1700000000000}"#)
        }
        let result = await fixture.client.send(Self.notification())
        let since = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(result == .rejected(status: 410, reason: .unregistered, timestamp: since))
        #expect(action(for: result) == .invalidateToken(since: since))
        await fixture.tearDown()
    }

    @Test func unansweredRequestsTimeOut() async throws {
        let fixture = try await Fixture(adjust: { $0.responseTimeout = 0.3 }) { _ in .ignore }
        let started = Date()
        #expect(await fixture.client.send(Self.notification()) == .failed(.timedOut))
        #expect(Date().timeIntervalSince(started) < 3)
        await fixture.tearDown()
    }

    @Test func aServerShuttingDownMovesLaterSendsToANewConnection() async throws {
        let fixture = try await Fixture { request in
            request.connection == 1 ? .respond(status: 503, body: #"{"reason":"Shutdown"}"#) : .respond(status: 200)
        }
        let first = await fixture.client.send(Self.notification())
        #expect(first == .rejected(status: 503, reason: .shutdown, timestamp: nil))
        #expect(action(for: first) == .retryOnNewConnection)
        let id = UUID()
        #expect(await fixture.client.send(Self.notification(id: id)) == .accepted(apnsID: id))
        #expect(fixture.server.requests.last?.connection == 2)
        await fixture.tearDown()
    }

    /// APNs counts rapid reconnection as an attack, and a new connection does not make the
    /// service available: the connection stays.
    @Test func serviceUnavailableKeepsItsConnection() async throws {
        let answered = Mutex(0)
        let fixture = try await Fixture { _ in
            answered.withLock { count in
                count += 1
                return count == 1 ? .respond(status: 503, body: #"{"reason":"ServiceUnavailable"}"#) : .respond(status: 200)
            }
        }
        let first = await fixture.client.send(Self.notification())
        #expect(first == .rejected(status: 503, reason: .serviceUnavailable, timestamp: nil))
        #expect(action(for: first) == .retryWithBackoff)
        let id = UUID()
        #expect(await fixture.client.send(Self.notification(id: id)) == .accepted(apnsID: id))
        #expect(fixture.server.requests.last?.connection == 1)
        await fixture.tearDown()
    }

    @Test func certificateAuthenticationPresentsTheClientCertificate() async throws {
        let fixture = try await Fixture(clientCertificate: true, requireClientCertificate: true) { _ in .respond(status: 200) }
        let id = UUID()
        #expect(await fixture.client.send(Self.notification(id: id)) == .accepted(apnsID: id))
        let request = try #require(fixture.server.requests.first)
        #expect(request.clientCertificate == "com.example.app")
        #expect(request.headers["authorization"] == nil)
        await fixture.tearDown()
    }

    @Test func withoutAClientCertificateTheHandshakeFails() async throws {
        let fixture = try await Fixture(requireClientCertificate: true, adjust: { $0.maxConnectFailures = 2 }) { _ in .respond(status: 200) }
        let result = await fixture.client.send(Self.notification())
        if case .failed(.connectionFailed) = result {} else { Issue.record("a client without a certificate got through: \(result)") }
        #expect(fixture.server.requests.isEmpty)
        await fixture.tearDown()
    }

    /// The queue timeout runs on the injected clock: a minute skipped fails the request that
    /// waits for a connection at once, not a minute later.
    @Test func aRequestWaitingPastTheQueueTimeoutFailsOnTheClientsClock() async throws {
        let fixture = try await Fixture(requireClientCertificate: true, adjust: { $0.maxConnectFailures = 1000 }) { _ in
            .respond(status: 200)
        }
        let client = try #require(fixture.client)
        async let result = client.send(Self.notification())
        try await poll { client.statistics.connectionFailures >= 1 }
        fixture.clock.skip(.seconds(61))
        if case .failed(.connectionFailed) = await result {} else { Issue.record("the request did not time out in the queue") }
        #expect(fixture.server.requests.isEmpty)
        await fixture.tearDown()
    }

    @Test func idleConnectionsArePingedAndKept() async throws {
        let fixture = try await Fixture(adjust: { $0.pingInterval = 0.2 }) { _ in .respond(status: 200) }
        _ = await fixture.client.send(Self.notification())
        try await poll { fixture.server.pings >= 2 }
        _ = await fixture.client.send(Self.notification())
        #expect(fixture.server.requests.map(\.connection) == [1, 1])
        await fixture.tearDown()
    }

    @Test func shutdownWaitsForAnswersAlreadyOnTheWire() async throws {
        let answer = DispatchSemaphore(value: 0)
        let fixture = try await Fixture { request in
            // The server's own connection thread holds the first answer back.
            if request.streamID == 1 { answer.wait() }
            return .respond(status: 200)
        }
        let client = try #require(fixture.client)
        let id = UUID()
        async let result = client.send(Self.notification(id: id))
        try await poll { client.statistics.streamsOpen == 1 }
        async let stopped: Void = client.shutdown()
        // Until shutdown has begun a send goes on the wire behind the held answer and waits for
        // it, so each probe is a task of its own (awaited, one would outlast the first's timeout).
        final class Refused: Sendable { let seen = Mutex(false) }
        let refused = Refused()
        var probes: [Task<Void, Never>] = []
        while !refused.seen.withLock({ $0 }) {
            probes.append(Task { if await client.send(Self.notification()) == .failed(.shutdown) { refused.seen.withLock { $0 = true } } })
            await Task.yield()
        }
        answer.signal()
        for probe in probes { await probe.value }
        #expect(await result == .accepted(apnsID: id))
        await stopped
        try await poll { fixture.server.openConnections == 0 }
        await fixture.tearDown()
    }

    @Test func aClientDroppedWithoutShutdownClosesItsConnections() async throws {
        let fixture = try await Fixture { _ in .respond(status: 200) }
        _ = await fixture.client.send(Self.notification())
        #expect(fixture.server.openConnections == 1)
        fixture.dropClient()
        try await poll { fixture.server.openConnections == 0 }
        await fixture.tearDown()
    }
}
