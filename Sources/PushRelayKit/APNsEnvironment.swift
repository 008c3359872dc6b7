import Foundation

/// Which APNs environment issued a device token: development builds get sandbox tokens.
public enum APNsEnvironment: String, Sendable, Codable, Equatable {
    case sandbox
    case production

    /// The environment of the running app: the `aps-environment` entitlement in its
    /// embedded provisioning profile when there is one (it is what APNs goes by), else the
    /// build configuration (sandbox for DEBUG builds).
    public static func current(bundle: Bundle = .main) -> APNsEnvironment {
        let profile = bundle.url(forResource: "embedded", withExtension: "mobileprovision").flatMap { try? Data(contentsOf: $0) }
        return choose(provisioningProfile: profile, debugBuild: isDebugBuild)
    }

    /// The choice itself: the profile's entitlement wins; without one (simulator, App
    /// Store installs strip the profile) a debug build is sandbox and a release build production.
    public static func choose(provisioningProfile: Data?, debugBuild: Bool) -> APNsEnvironment {
        if let provisioningProfile, let entitled = entitlement(inProfile: provisioningProfile) { return entitled }
        return debugBuild ? .sandbox : .production
    }

    /// The `aps-environment` of a provisioning profile (a signed plist: the XML sits in
    /// the clear inside the CMS envelope); nil when the profile has none.
    public static func entitlement(inProfile profile: Data) -> APNsEnvironment? {
        let text = String(decoding: profile, as: UTF8.self)
        guard let key = text.range(of: "<key>aps-environment</key>") else { return nil }
        let rest = text[key.upperBound...]
        guard let open = rest.range(of: "<string>"), let close = rest.range(of: "</string>", range: open.upperBound..<rest.endIndex),
              rest[rest.startIndex..<open.lowerBound].allSatisfy(\.isWhitespace) else { return nil }
        switch rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces) {
        case "development": return .sandbox
        case "production": return .production
        default: return nil
        }
    }

    /// Whether this library was compiled for debugging (SwiftPM and Xcode build packages in
    /// the app's configuration).
    public static var isDebugBuild: Bool {
        #if DEBUG
        true
        #else
        false
        #endif
    }
}
