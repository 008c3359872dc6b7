import RelayCore

/// The platforms JPush knows. PushRelay delivers to iOS (APNs) and Android (FCM); pushes
/// for the others are accepted and counted as having no target here.
public enum Platform: String, Sendable, Hashable, CaseIterable {
    case ios, android, winphone, quickapp, hmos
}

/// `platform`: `"all"` or a list.
public enum PlatformSelection: Sendable, Hashable {
    case all
    case only(Set<Platform>)

    public var includesIOS: Bool { includes(.ios) }
    public var includesAndroid: Bool { includes(.android) }

    public func includes(_ platform: Platform) -> Bool {
        switch self {
        case .all: true
        case .only(let platforms): platforms.contains(platform)
        }
    }

    /// Reads `platform`: `"all"`, a list of platform names, or (leniently) one name.
    ///
    /// - Throws: 1002 when absent; 1003 for an unknown name, an empty list or a wrong type.
    static func parse(_ value: JSONValue?) throws(JPushError) -> PlatformSelection {
        switch value {
        case nil, .null?:
            throw JPushError.missingParameter("platform is required")
        case .string("all")?:
            return .all
        case .string(let name)?:
            return .only([try platform(name, field: "platform")])
        case .array(let items)?:
            guard !items.isEmpty else { throw JPushError.illegalValue("platform must be \"all\" or a non-empty list") }
            var platforms = Set<Platform>()
            for (index, item) in items.enumerated() {
                guard case .string(let name) = item else {
                    throw JPushError.illegalValue("platform[\(index)] must be a string, got \(item.typeName)")
                }
                platforms.insert(try platform(name, field: "platform[\(index)]"))
            }
            return .only(platforms)
        case let other?:
            throw JPushError.illegalValue("platform must be \"all\" or a list, got \(other.typeName)")
        }
    }

    private static func platform(_ name: String, field: String) throws(JPushError) -> Platform {
        guard let platform = Platform(rawValue: name) else {
            let known = Platform.allCases.map(\.rawValue).joined(separator: ", ")
            throw JPushError.illegalValue("\(field) \(InputEcho.quoted(name)) is not a platform; use \"all\" or some of \(known)")
        }
        return platform
    }
}
