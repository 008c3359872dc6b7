import EventLoops
import Foundation
import Testing
import RelayCore
import TestSupport
@testable import WebhookClient

/// The client against real receivers on loopback: plain HTTP and HTTPS with a test CA.
@Suite(.serialized)
struct WebhookHTTPClientTests {
    static let group: EventLoopGroup = {
        do { return try EventLoopGroup(loopCount: 2, name: "webhook-test") } catch { fatalError("\(error)") }
    }()

    static func client(allowPrivate: Bool = true, caFile: String? = nil, adjust: (inout WebhookClientConfiguration) -> Void = { _ in })
        throws -> WebhookHTTPClient {
        var configuration = WebhookClientConfiguration()
        configuration.allowPrivate = allowPrivate
        configuration.caFile = caFile
        adjust(&configuration)
        return try WebhookHTTPClient(group: group, configuration: configuration)
    }

    static func url(_ text: String) throws -> WebhookURL { try WebhookURL(parsing: text) }

    /// A self-signed certificate for 127.0.0.1 and localhost, which is its own CA.
    static func makeCertificate() async throws -> (directory: URL, certificate: String, key: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webhook-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("receiver.crt").path
        let key = directory.appendingPathComponent("receiver.key").path
        _ = try await TestProcess.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
            "-out", certificate, "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ])
        return (directory, certificate, key)
    }

    @Test func postsTheBodyAndReadsA200() async throws {
        let receiver = try TestReceiver(reply: .raw("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
        defer { receiver.stop() }
        let body = Array(#"{"events":[]}"#.utf8)
        let attempt = try await Self.client().post(try Self.url("http://127.0.0.1:\(receiver.port)/hooks/in?x=1"), body: body,
                                                   headers: [("Content-Type", "application/json"), ("X-PushRelay-Signature", "t=1,v1=ab")])
        #expect(attempt == .answered(status: 200))
        let request = try #require(receiver.requests.first)
        #expect(request.head.hasPrefix("POST /hooks/in?x=1 HTTP/1.1\r\nHost: 127.0.0.1:\(receiver.port)\r\n"))
        #expect(request.head.contains("\r\nContent-Type: application/json\r\n"))
        #expect(request.head.contains("\r\nX-PushRelay-Signature: t=1,v1=ab\r\n"))
        #expect(request.head.contains("\r\nContent-Length: \(body.count)\r\n"))
        #expect(request.head.contains("\r\nConnection: close\r\n"))
        #expect(request.body == body)
    }

    @Test func aServerErrorIsAnAnswer() async throws {
        let receiver = try TestReceiver(reply: .raw("HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n5\r\noops!\r\n0\r\n\r\n"))
        defer { receiver.stop() }
        let attempt = try await Self.client().post(try Self.url("http://127.0.0.1:\(receiver.port)/"), body: [], headers: [])
        #expect(attempt == .answered(status: 500))
    }

    @Test func aRedirectIsNotFollowed() async throws {
        let receiver = try TestReceiver(reply: .raw("HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/\r\nContent-Length: 0\r\n\r\n"))
        defer { receiver.stop() }
        let attempt = try await Self.client().post(try Self.url("http://127.0.0.1:\(receiver.port)/"), body: [], headers: [])
        #expect(attempt == .answered(status: 302))
        #expect(receiver.requests.count == 1)
    }

    @Test func aReceiverThatNeverAnswersTimesOut() async throws {
        let receiver = try TestReceiver(reply: .silent)
        defer { receiver.stop() }
        let client = try Self.client { $0.timeout = .milliseconds(300) }
        let started = ContinuousClock.now
        let attempt = await client.post(try Self.url("http://127.0.0.1:\(receiver.port)/"), body: Array("{}".utf8), headers: [])
        #expect(attempt == .timedOut("answer"))
        #expect(ContinuousClock.now - started < .seconds(5))
        // The client hung up: the receiver's connection ends.
        try await poll { receiver.connectionsDone == 1 }
    }

    @Test func aHandshakeThatNeverEndsTimesOutInTheConnectPhase() async throws {
        // A plain TCP receiver that reads the ClientHello and says nothing.
        let receiver = try TestReceiver(reply: .silent)
        defer { receiver.stop() }
        let client = try Self.client { $0.connectTimeout = .milliseconds(300) }
        let started = ContinuousClock.now
        #expect(await client.post(try Self.url("https://127.0.0.1:\(receiver.port)/"), body: [], headers: []) == .timedOut("connect"))
        #expect(ContinuousClock.now - started < .seconds(5))
        try await poll { receiver.connectionsDone == 1 }
    }

    @Test func aHugeAnswerIsNotReadBeyondTheLimit() async throws {
        let receiver = try TestReceiver(reply: .endless)
        defer { receiver.stop() }
        let attempt = try await Self.client().post(try Self.url("http://127.0.0.1:\(receiver.port)/"), body: [], headers: [])
        #expect(attempt == .answered(status: 200))
        // The receiver's writes fail once the client has closed: only what the socket buffers held got out.
        try await poll { receiver.connectionsDone == 1 }
        #expect(receiver.bytesWritten < 64 << 20)
    }

    @Test func aRefusedConnectionFails() async throws {
        let receiver = try TestReceiver(reply: .silent)
        let port = receiver.port
        receiver.stop()
        let attempt = try await Self.client().post(try Self.url("http://127.0.0.1:\(port)/"), body: [], headers: [])
        guard case let .failed(reason) = attempt else { Issue.record("\(attempt)"); return }
        #expect(reason.contains("127.0.0.1:\(port)"))
    }

    @Test func httpsWithTheTestCA() async throws {
        let files = try await Self.makeCertificate()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let receiver = try TestReceiver(reply: .raw("HTTP/1.1 204 No Content\r\n\r\n"), tls: (files.certificate, files.key))
        defer { receiver.stop() }
        let client = try Self.client(caFile: files.certificate)
        #expect(await client.post(try Self.url("https://127.0.0.1:\(receiver.port)/tls"), body: Array("{}".utf8), headers: []) == .answered(status: 204))
        #expect(await client.post(try Self.url("https://localhost:\(receiver.port)/tls"), body: Array("{}".utf8), headers: []) == .answered(status: 204))
        #expect(receiver.requests.map(\.body) == [Array("{}".utf8), Array("{}".utf8)])
    }

    @Test func httpsWithAnUntrustedCertificateFails() async throws {
        let files = try await Self.makeCertificate()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let receiver = try TestReceiver(reply: .raw("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), tls: (files.certificate, files.key))
        defer { receiver.stop() }
        let attempt = try await Self.client().post(try Self.url("https://127.0.0.1:\(receiver.port)/"), body: [], headers: [])
        guard case let .failed(reason) = attempt else { Issue.record("\(attempt)"); return }
        #expect(reason.contains("certificate"))
        #expect(receiver.requests.isEmpty)
    }

    @Test(arguments: ["http://127.0.0.1:9/", "http://[::1]:9/", "http://10.1.2.3/", "http://169.254.169.254/latest/meta-data/",
                      "http://[::ffff:127.0.0.1]/", "http://localhost:9/"])
    func theGuardRefusesNonPublicTargets(_ text: String) async throws {
        let attempt = try await Self.client(allowPrivate: false).post(try Self.url(text), body: [], headers: [])
        guard case let .refused(reason) = attempt else { Issue.record("\(text): \(attempt)"); return }
        #expect(reason.contains("is not a public address"))
    }

    @Test func theGuardChecksTheAddressConnectedTo() async throws {
        // Allowed, `localhost` reaches the receiver through the resolver (/etc/hosts).
        let receiver = try TestReceiver(reply: .raw("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"))
        defer { receiver.stop() }
        #expect(try await Self.client().post(try Self.url("http://localhost:\(receiver.port)/"), body: [], headers: []) == .answered(status: 202))
        // Not allowed, nothing is sent.
        let refused = try await Self.client(allowPrivate: false).post(try Self.url("http://localhost:\(receiver.port)/"), body: [], headers: [])
        #expect(refused == .refused("127.0.0.1 is not a public address: loopback (127.0.0.0/8) (PUSHRELAY_WEBHOOK_ALLOW_PRIVATE=1 allows it)"))
        #expect(receiver.requests.count == 1)
    }

    @Test func anUnknownHostFails() async throws {
        let client = try Self.client { $0.connectTimeout = .seconds(2) }
        let attempt = await client.post(try Self.url("http://no-such-host.invalid/"), body: [], headers: [])
        switch attempt {
        case .failed, .timedOut("connect"): break
        default: Issue.record("\(attempt)")
        }
    }

    @Test func tooLargeBodiesAndOwnHeadersAreRefusedUnsent() async throws {
        let client = try Self.client { $0.maxRequestBytes = 10 }
        let url = try Self.url("http://127.0.0.1:9/")
        #expect(await client.post(url, body: Array(repeating: 0, count: 11), headers: []) == .refused("the body is 11 bytes, over the limit of 10"))
        #expect(await client.post(url, body: [], headers: [("Content-Length", "5")]) == .refused("the client sets the Content-Length header itself"))
    }

    /// Polls `condition` until it holds, for at most 10 s.
    func poll(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("condition not met within 10 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
