import Foundation
import RelayCore
import Testing
@testable import APNSClient

extension ClientIntegrationTests {
    /// A client with the shared `resources`, for `server`, with the key of `configuration`.
    private static func client(_ configuration: APNSClientConfiguration, resources: APNSClientResources) throws -> APNSClient {
        try APNSClient(configuration: configuration, logger: Logger(label: "test", level: .error), resources: resources)
    }

    private static func isAccepted(_ result: APNSResult) -> Bool {
        if case .accepted = result { return true }
        return false
    }

    @Test("an idle connection closes after the idle timeout on the client's clock; the next send opens one that resumes the TLS session")
    func idleConnectionClosesAndReconnectResumes() async throws {
        try await withNGHTTPD(tokens: [Self.token]) { server in
            let clock = TestClock(Date())
            var configuration = try await Self.tokenConfiguration(server)
            configuration.maxConnections = 1
            #expect(configuration.idleTimeout == 300)
            let client = try APNSClient(configuration: configuration, logger: Logger(label: "test", level: .error), clock: clock)
            #expect(client.statistics.connectionsOpen == 0, "no connection before there is work")
            #expect(Self.isAccepted(await client.send(Self.notification())))
            #expect(client.statistics.connectionsOpen == 1)
            // Five minutes without work, on the client's clock (the boundary itself:
            // ConnectionPoolStateMachineTests).
            clock.skip(.seconds(301))
            try await poll { client.statistics.connectionsOpen == 0 }
            #expect(Self.isAccepted(await client.send(Self.notification())))
            let statistics = client.statistics
            #expect(statistics.connectionsOpened == 2 && statistics.connectionFailures == 0)
            #expect(statistics.connectionsResumed == 1, "the second handshake resumed the first connection's session")
            await client.shutdown()
        }
    }

    @Test("clients of one team key share its token manager; another key has its own; the last client gone frees it")
    func clientsOfOneKeyShareItsTokens() async throws {
        try await withNGHTTPD(tokens: [Self.token]) { server in
            let resources = APNSClientResources()
            let configuration = try await Self.tokenConfiguration(server)
            var first: APNSClient? = try Self.client(configuration, resources: resources)
            var second: APNSClient? = try Self.client(configuration, resources: resources)
            #expect(resources.tokenManagerCount == 1)
            let other = try Self.client(try await Self.tokenConfiguration(server), resources: resources)
            #expect(resources.tokenManagerCount == 2)
            for client in [first, second, other].compactMap({ $0 }) {
                #expect(Self.isAccepted(await client.send(Self.notification())))
                await client.shutdown()
            }
            first = nil
            second = nil
            _ = (first, second)
            try await poll { resources.tokenManagerCount == 1 }
        }
    }

    @Test("at the process's bound a client with work gets the idle connection of another")
    func theBoundGivesAnIdleConnectionToAClientWithWork() async throws {
        try await withNGHTTPD(tokens: [Self.token]) { server in
            let resources = APNSClientResources(maxConnections: 1)
            var configuration = try await Self.tokenConfiguration(server)
            configuration.maxConnections = 2
            let busy = try Self.client(configuration, resources: resources)
            let newcomer = try Self.client(configuration, resources: resources)
            #expect(Self.isAccepted(await busy.send(Self.notification())))
            #expect(resources.connectionsHeld == 1)
            // The bound is taken by `busy`'s idle connection: it gives it back.
            #expect(Self.isAccepted(await newcomer.send(Self.notification())))
            try await poll { busy.statistics.connectionsOpen == 0 }
            #expect(newcomer.statistics.connectionsOpen == 1 && resources.connectionsHeld == 1)
            // And back again, each time within the bound.
            #expect(Self.isAccepted(await busy.send(Self.notification())))
            #expect(resources.connectionsHeld == 1)
            await busy.shutdown()
            await newcomer.shutdown()
            #expect(resources.connectionsHeld == 0)
        }
    }
}
