import APNSClient
import FCMClient
import Foundation
import RelayCore
import RelayCrypto

/// What the pipeline needs from an APNs connection: send a round's notifications, get each
/// one's result in the same order; `urgent` ones (the targeted lane's) go out before the
/// others waiting. The one seam between the worker and the client.
public protocol NotificationSender: Sendable {
    func send(_ notifications: [APNSNotification], urgent: Bool) async -> [APNSResult]
    func shutdown() async
    /// The connection's counters, when it keeps them (for metrics).
    var statistics: APNSClientStatistics? { get }
}

extension NotificationSender {
    public var statistics: APNSClientStatistics? { nil }
}

/// What the pipeline needs from an app's FCM client: send a round's messages (one per
/// device), get each one's result in the same order; `urgent` ones go first.
public protocol FCMSender: Sendable {
    func send(_ messages: [FCMMessage], urgent: Bool) async -> [FCMResult]
    func shutdown() async
    /// The connections' counters, when it keeps them (for metrics).
    var statistics: APNSClientStatistics? { get }
}

extension FCMSender {
    public var statistics: APNSClientStatistics? { nil }
}

/// `APNSClient`'s batch `send` as a `NotificationSender`: a chunk reaches the client's loop
/// threads in a few hand-overs instead of one task and one hop per device.
struct APNSClientSender: NotificationSender {
    let client: APNSClient

    func send(_ notifications: [APNSNotification], urgent: Bool) async -> [APNSResult] {
        await client.send(notifications, urgent: urgent)
    }

    func shutdown() async {
        await client.shutdown()
    }

    var statistics: APNSClientStatistics? { client.statistics }
}

extension APNSClientSender {
    /// Builds an APNs client per credential, to the configured endpoints, with the secret
    /// opened by `box`; the clients share provider tokens, TLS sessions and the bound on
    /// connections (`apnsMaxConnectionsTotal`).
    static func make(configuration: PipelineConfiguration, box: SecretBox, logger: Logger,
                     resources: APNSClientResources) -> SenderCache.MakeSender {
        { credential, environment in
            var clientConfiguration = try APNSClientConfiguration(
                endpoint: configuration.url(for: environment), authentication: credential.authentication(box: box),
                caFile: configuration.caFile)
            clientConfiguration.connections = configuration.apnsConnections
            clientConfiguration.maxConnections = max(configuration.apnsConnections, configuration.apnsMaxConnections)
            clientConfiguration.minInFlight = min(configuration.apnsMinInFlight, configuration.apnsMaxInFlight)
            clientConfiguration.maxInFlight = configuration.apnsMaxInFlight
            clientConfiguration.idleTimeout = configuration.apnsIdleTimeout
            return APNSClientSender(client: try APNSClient(
                configuration: clientConfiguration, logger: logger.with(["app_key": credential.appKey, "environment": environment]),
                resources: resources))
        }
    }
}

/// `FCMClient` as an `FCMSender`.
struct FCMClientSender: FCMSender {
    let client: FCMClient

    func send(_ messages: [FCMMessage], urgent: Bool) async -> [FCMResult] {
        await client.send(messages, urgent: urgent)
    }

    func shutdown() async {
        await client.shutdown()
    }

    var statistics: APNSClientStatistics? { client.statistics }
}

extension FCMClientSender {
    /// Builds an FCM client per service account, to the configured endpoint
    /// (`PUSHRELAY_FCM_URL`), sharing the APNs clients' bound on connections and TLS sessions
    /// (`resources`), with the APNs clients' connections, window and idle timeout.
    static func make(configuration: PipelineConfiguration, box: SecretBox, logger: Logger,
                     resources: APNSClientResources) -> SenderCache.MakeFCMSender {
        { credential in
            var clientConfiguration = FCMClientConfiguration(endpoint: configuration.fcmURL, caFile: configuration.fcmCAFile)
            clientConfiguration.connections = configuration.apnsConnections
            clientConfiguration.maxConnections = max(configuration.apnsConnections, configuration.apnsMaxConnections)
            clientConfiguration.minInFlight = min(configuration.apnsMinInFlight, configuration.apnsMaxInFlight)
            clientConfiguration.maxInFlight = configuration.apnsMaxInFlight
            clientConfiguration.idleTimeout = configuration.apnsIdleTimeout
            return FCMClientSender(client: try FCMClient(
                configuration: clientConfiguration, account: try credential.account(box: box),
                logger: logger.with(["app_key": credential.appKey]), resources: resources))
        }
    }
}
