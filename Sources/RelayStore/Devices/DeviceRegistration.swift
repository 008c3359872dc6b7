import RelayCore

/// Which APNs environment a token belongs to: a development build's token works only
/// against the sandbox.
public enum DeviceEnvironment: String, Sendable, CaseIterable {
    case sandbox, production

    public init(parsing raw: String) throws(DeviceFieldError) {
        guard let value = DeviceEnvironment(rawValue: raw) else {
            throw DeviceFieldError("environment must be \"sandbox\" or \"production\", got \(InputEcho.quoted(raw))")
        }
        self = value
    }
}

/// A validated `POST /v3/devices` body (or import line): register or refresh one token.
public struct DeviceRegistration: Sendable, Equatable {
    public static let maxTagsPerDevice = 1000
    public static let maxBadge: Int64 = 1_000_000

    public var platform: DevicePlatform
    public var token: DeviceToken
    /// The APNs environment of an iOS token; nil for Android (FCM has none).
    public var environment: DeviceEnvironment?
    /// nil: keep the device's alias; "": remove it; otherwise the new alias.
    public var alias: String?
    /// nil: keep the device's tags; otherwise its whole new set of tags (empty clears).
    public var tags: [String]?
    /// nil: keep the stored badge.
    public var badge: Int?

    /// `token_type` may say `"apns"` (the default); another kind is a `PushTokenRegistration`.
    public static let fields: Set<String> = ["platform", "token", "token_type", "environment", "alias", "tags", "badge"]

    public init(platform: DevicePlatform = .ios, token: DeviceToken, environment: DeviceEnvironment?, alias: String? = nil,
                tags: [String]? = nil, badge: Int? = nil) {
        self.platform = platform
        self.token = token
        self.environment = environment
        self.alias = alias
        self.tags = tags
        self.badge = badge
    }

    /// - Throws: `JPushError` (1002/1003/1009, turned into 7002 by the route) for the JSON's
    ///   shape, `DeviceFieldError` for a value the registry refuses.
    public init(_ body: JSONObjectReader) throws {
        try body.rejectUnknownKeys(allowed: Self.fields)
        if let kind = try PushTokenRegistration.kind(in: body) {
            throw DeviceFieldError(
                "token_type \"\(kind.rawValue)\" registers a \(kind.displayName) token beside a device's notification token (PushTokenRegistration)")
        }
        platform = try DevicePlatform(parsing: try body.string("platform"))
        token = try DeviceToken(parsing: try body.string("token"), platform: platform)
        environment = try Self.environment(platform, given: try body.optionalString("environment"))
        alias = try body.optionalString("alias")
        if let alias, !alias.isEmpty { try DeviceLabel.validate(alias, kind: "alias") }
        tags = try Self.tagList(body.fields["tags"], field: "tags", limit: Self.maxTagsPerDevice)
        badge = try Self.parseBadge(body)
    }

    /// An iOS token's environment is required; an Android device has none, so one given
    /// (apps often send the same body for both) is checked and dropped.
    public static func environment(_ platform: DevicePlatform, given: String?) throws(DeviceFieldError) -> DeviceEnvironment? {
        switch (platform, given) {
        case (.ios, nil): throw DeviceFieldError("environment is required for an iOS device: \"sandbox\" or \"production\"")
        case (.ios, let raw?): return try DeviceEnvironment(parsing: raw)
        case (.android, nil): return nil
        case (.android, let raw?):
            _ = try DeviceEnvironment(parsing: raw)
            return nil
        }
    }

    /// A JSON array of distinct valid tags, at most `limit` of them; nil when absent or null.
    public static func tagList(_ value: JSONValue?, field: String, limit: Int) throws(DeviceFieldError) -> [String]? {
        switch value {
        case nil, .null?: return nil
        case .array(let items)?:
            var tags: [String] = []
            var seen: Set<String> = []
            for item in items {
                guard case .string(let tag) = item else { throw DeviceFieldError("\(field) must be a list of strings, found \(item.typeName)") }
                try DeviceLabel.validate(tag, kind: "tag")
                if seen.insert(tag).inserted { tags.append(tag) }
            }
            guard tags.count <= limit else { throw DeviceFieldError("\(field) has \(tags.count) tags; at most \(limit) are allowed") }
            return tags
        case let other?:
            throw DeviceFieldError("\(field) must be a list of strings, got \(other.typeName)")
        }
    }

    public static func parseBadge(_ body: JSONObjectReader) throws -> Int? {
        guard let badge = try body.optionalInt("badge") else { return nil }
        guard (0...maxBadge).contains(badge) else { throw DeviceFieldError("badge must be from 0 to \(maxBadge), got \(badge)") }
        return Int(badge)
    }
}
