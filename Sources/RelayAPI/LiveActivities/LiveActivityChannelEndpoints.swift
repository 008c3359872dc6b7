import Foundation
import RelayCore
import RelayStore

/// Where the relay reaches APNs for Live Activity broadcast channels: the channel-management
/// service (create, list, delete) and the APNs endpoint that takes broadcasts, per environment.
public struct LiveActivityChannelEndpoints: Sendable, Equatable {
    public var managementProduction: URL
    public var managementSandbox: URL
    public var broadcastProduction: URL
    public var broadcastSandbox: URL
    /// PEM CAs trusted besides the system's (the simulator's certificate).
    public var caFile: String?

    /// Apple's, or those `configuration` names (`PUSHRELAY_APNS_CHANNELS_*_URL`, and
    /// `PUSHRELAY_APNS_*_URL` for broadcasts).
    public init(_ configuration: RelayConfiguration = RelayConfiguration()) {
        managementProduction = configuration.apnsChannelsProductionURL
        managementSandbox = configuration.apnsChannelsSandboxURL
        broadcastProduction = configuration.apnsProductionURL
        broadcastSandbox = configuration.apnsSandboxURL
        caFile = configuration.apnsCAFile
    }

    /// Every endpoint at `url` (one simulator serves them all), trusting `caFile`.
    public init(all url: URL, caFile: String?) {
        managementProduction = url
        managementSandbox = url
        broadcastProduction = url
        broadcastSandbox = url
        self.caFile = caFile
    }

    func management(_ environment: DeviceEnvironment) -> URL {
        environment == .production ? managementProduction : managementSandbox
    }

    func broadcast(_ environment: DeviceEnvironment) -> URL {
        environment == .production ? broadcastProduction : broadcastSandbox
    }
}
