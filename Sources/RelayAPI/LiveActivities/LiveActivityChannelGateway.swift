import APNSClient
import EventLoops
import Foundation
import RelayCore
import RelayStore
import Synchronization

/// The API's APNs clients for broadcast channels: one per app, environment, service
/// (channel management or broadcasts) and credential upload, reused while the process runs
/// so a channel's updates ride one connection (it closes after `idleTimeout` without
/// requests and reopens, resuming TLS, on the next). At most `maxClients` are kept; the
/// oldest made goes first. They share provider tokens and TLS sessions.
final class LiveActivityChannelGateway: Sendable {
    enum Service: Hashable, Sendable { case management, broadcast }

    private struct Key: Hashable {
        var appKey: String
        var environment: DeviceEnvironment
        var service: Service
        var version: String
    }

    static let maxClients = 64
    private let endpoints: LiveActivityChannelEndpoints
    private let logger: Logger
    private let resources = APNSClientResources()
    private let clients = Mutex<(byKey: [Key: APNSClient], order: [Key])>(([:], []))

    init(endpoints: LiveActivityChannelEndpoints, logger: Logger) {
        self.endpoints = endpoints
        self.logger = logger.with(["component": "live-activity-channels"])
    }

    func perform(_ request: APNSChannelRequest, appKey: String, environment: DeviceEnvironment,
                 credential: ChannelCredential) async throws -> APNSChannelResult {
        try await client(appKey: appKey, environment: environment, service: .management, credential: credential).perform(request)
    }

    func send(_ broadcast: APNSBroadcast, appKey: String, environment: DeviceEnvironment, credential: ChannelCredential) async throws -> APNSResult {
        try await client(appKey: appKey, environment: environment, service: .broadcast, credential: credential).send(broadcast)
    }

    private func client(appKey: String, environment: DeviceEnvironment, service: Service, credential: ChannelCredential) throws -> APNSClient {
        let key = Key(appKey: appKey, environment: environment, service: service, version: credential.version)
        if let client = clients.withLock({ $0.byKey[key] }) { return client }
        let url = service == .management ? endpoints.management(environment) : endpoints.broadcast(environment)
        let made: APNSClient
        do {
            var configuration = try APNSClientConfiguration(endpoint: url, authentication: credential.authentication, caFile: endpoints.caFile)
            configuration.connections = 1
            configuration.maxConnections = 2
            configuration.minInFlight = 64
            configuration.maxInFlight = 1000
            made = try APNSClient(configuration: configuration, logger: logger.with(["app_key": appKey, "environment": environment.rawValue]),
                                  resources: resources)
        } catch {
            logger.error("cannot make an APNs client for channels", ["app_key": appKey, "error": "\(error)"])
            throw JPushError.internalError("cannot reach APNs with the app's credential")
        }
        let (kept, evicted) = clients.withLock { state -> (APNSClient, APNSClient?) in
            if let raced = state.byKey[key] { return (raced, made) }
            var evicted: APNSClient?
            if state.order.count >= Self.maxClients {
                evicted = state.byKey.removeValue(forKey: state.order.removeFirst())
            }
            state.byKey[key] = made
            state.order.append(key)
            return (made, evicted)
        }
        if let evicted { Task { await evicted.shutdown() } }
        return kept
    }

    func shutdown() async {
        let all = clients.withLock { state in
            defer { state = ([:], []) }
            return Array(state.byKey.values)
        }
        for client in all { await client.shutdown() }
    }
}
