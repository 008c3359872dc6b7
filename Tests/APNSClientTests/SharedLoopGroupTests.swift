import APNSClient
import EventLoops
import Foundation
import RelayCore
import Testing

extension ClientIntegrationTests {
    /// The threads of this process right now.
    static func threadCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
    }

    @Test("200 apps' clients share the loop group: the process's thread count does not grow with the clients")
    func clientsShareTheLoopGroup() async throws {
        try await withNGHTTPD(tokens: [Self.token]) { server in
            let group = try EventLoopGroup(loopCount: 2, name: "shared-test")
            var configuration = try await Self.tokenConfiguration(server)
            configuration.maxConnections = 1
            func connectedClient() async throws -> APNSClient {
                let client = try APNSClient(configuration: configuration, logger: Logger(label: "test", level: .error), group: group)
                _ = await client.send(Self.notification())  // opens its connection
                return client
            }
            // One client first, so what every client shares (the loops, the pool threads of
            // Swift concurrency) is running before counting.
            var clients = [try await connectedClient()]
            let before = try Self.threadCount()
            for _ in 1..<200 { clients.append(try await connectedClient()) }
            let after = try Self.threadCount()
            #expect(clients.allSatisfy { $0.statistics.accepted == 1 })
            // One thread per client (the old design) would add 199; the group adds none.
            #expect(after - before < 10, "\(before) threads with one client, \(after) with 200")
            for client in clients { await client.shutdown() }
            await group.shutdown()
        }
    }
}
