import APNSClient
import Foundation

/// Where an `FCMClient` sends and the bounds it keeps (its connections are those of the APNs
/// client machinery: `APNSClientConfiguration` names each bound).
public struct FCMClientConfiguration: Sendable {
    /// FCM's endpoint.
    public static let productionURL = URL(string: "https://fcm.googleapis.com")!

    public var endpoint: URL
    /// PEM CA certificates trusted besides the system's (for the simulator or a proxy).
    public var caFile: String?
    /// Connections while the round trip does not limit the rate.
    public var connections: Int = 2
    public var maxConnections: Int = 4
    /// Where the in-flight window starts, and its floor.
    public var minInFlight: Int = 2000
    public var maxInFlight: Int = 4000
    public var eventLoopCount: Int = 1
    public var idleTimeout: TimeInterval = 300
    public var responseTimeout: TimeInterval = 30
    /// How long before an access token expires a new one is fetched.
    public var tokenRefreshMargin: TimeInterval = 300

    public init(endpoint: URL = FCMClientConfiguration.productionURL, caFile: String? = nil) {
        self.endpoint = endpoint
        self.caFile = caFile
    }

    /// The pool configuration for `url`'s host: requests carry their own authorization.
    func transport(to url: URL) throws -> APNSClientConfiguration {
        var configuration = try APNSClientConfiguration(endpoint: url, authentication: .perRequest, caFile: caFile)
        configuration.connections = connections
        configuration.maxConnections = maxConnections
        configuration.minInFlight = minInFlight
        configuration.maxInFlight = maxInFlight
        configuration.eventLoopCount = eventLoopCount
        configuration.idleTimeout = idleTimeout
        configuration.responseTimeout = responseTimeout
        return configuration
    }
}
