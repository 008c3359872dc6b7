import APNSClient
import Foundation
import RelayCore
import Synchronization
import Testing

/// The client against `nghttpd` over TLS on 127.0.0.1.
@Suite(.serialized)
struct ClientIntegrationTests {
    static let token = String(repeating: "ab", count: 32)

    /// A token-auth client for `server`, with a fresh P-256 key.
    static func makeClient(
        _ server: NGHTTPDServer, maxConnections: Int = 2, maxInFlight: Int = 500,
        adjust: (inout APNSClientConfiguration) -> Void = { _ in }
    ) async throws -> APNSClient {
        let keyPath = server.directory.path("signing.p8")
        try await run(try executable("openssl"), ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyPath])
        var configuration = try APNSClientConfiguration(
            endpoint: URL(string: "https://127.0.0.1:\(server.port)")!,
            authentication: .token(keyPEM: try String(contentsOfFile: keyPath, encoding: .utf8), keyID: "KEY1234567", teamID: "TEAM123456"),
            caFile: server.caFile)
        configuration.maxConnections = maxConnections
        configuration.maxInFlight = maxInFlight
        adjust(&configuration)
        return try APNSClient(configuration: configuration, logger: Logger(label: "test", level: .warning))
    }

    static func notification(token: String = token, id: UUID = UUID()) -> APNSNotification {
        APNSNotification(deviceToken: token, topic: "com.example.app", apnsID: id, payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8))
    }

    @Test func roundTripGivesTypedResults() async throws {
        let server = try await NGHTTPDServer(tokens: [Self.token])
        try await server.start()
        let client = try await Self.makeClient(server)
        let id = UUID()
        let accepted = await client.send(Self.notification(id: id))
        #expect(accepted == .accepted(apnsID: id))
        let missing = await client.send(Self.notification(token: "cd"))
        #expect(missing == .rejected(status: 404, reason: .unknown(""), timestamp: nil))
        #expect(action(for: missing) == .failPermanently(.unknown("")))
        await client.shutdown()
        await server.stop()
    }
}
