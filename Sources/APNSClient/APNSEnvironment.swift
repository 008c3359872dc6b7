import Foundation

/// The APNs environment a device token belongs to: tokens from development builds work only
/// in the sandbox, and the reverse.
public enum APNSEnvironment: String, Sendable, Hashable, CaseIterable {
    case production
    case sandbox

    /// Apple's endpoint for this environment.
    public var defaultURL: URL {
        switch self {
        case .production: APNSClientConfiguration.productionURL
        case .sandbox: APNSClientConfiguration.sandboxURL
        }
    }
}
