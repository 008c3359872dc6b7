import RelayCore

/// A validated `POST /v3/devices/{rid}` body, with JPush's empty-string semantics:
/// `"tags": ""` clears every tag, `"alias": ""` and `"mobile": ""` remove the value.
public struct DeviceUpdate: Sendable, Equatable {
    public static let maxTagsPerChange = 100

    public enum Tags: Sendable, Equatable {
        case keep
        case clear
        case change(add: [String], remove: [String])
    }

    public var tags: Tags = .keep
    /// nil: keep; "": remove; otherwise set.
    public var alias: String?
    /// nil: keep; "": remove; otherwise set.
    public var mobile: String?
    public var badge: Int?

    public init(tags: Tags = .keep, alias: String? = nil, mobile: String? = nil, badge: Int? = nil) {
        self.tags = tags
        self.alias = alias
        self.mobile = mobile
        self.badge = badge
    }

    public init(_ body: JSONObjectReader) throws {
        try body.rejectUnknownKeys(allowed: ["tags", "alias", "mobile", "badge"])
        switch body.fields["tags"] {
        case nil, .null?:
            tags = .keep
        case .string("")?:
            tags = .clear
        case .string(let other)?:
            throw DeviceFieldError("tags must be \"\" (clear every tag) or {\"add\":[…],\"remove\":[…]}, got \(InputEcho.quoted(other))")
        case .object?:
            let change = try JSONObjectReader(body.fields["tags"]!, path: "tags.")
            try change.rejectUnknownKeys(allowed: ["add", "remove"])
            let add = try DeviceRegistration.tagList(change.fields["add"], field: "tags.add", limit: Self.maxTagsPerChange) ?? []
            let remove = try DeviceRegistration.tagList(change.fields["remove"], field: "tags.remove", limit: Self.maxTagsPerChange) ?? []
            if let both = add.first(where: Set(remove).contains) {
                throw DeviceFieldError("tag \(InputEcho.quoted(both)) is both added and removed")
            }
            tags = .change(add: add, remove: remove)
        case let other?:
            throw DeviceFieldError("tags must be \"\" or an object with add and remove, got \(other.typeName)")
        }
        alias = try body.optionalString("alias")
        if let alias, !alias.isEmpty { try DeviceLabel.validate(alias, kind: "alias") }
        mobile = try body.optionalString("mobile")
        if let mobile, !mobile.isEmpty { try Self.validateMobile(mobile) }
        badge = try DeviceRegistration.parseBadge(body)
    }

    /// A phone number: digits, optionally a leading `+`, at most 20 characters.
    public static func validateMobile(_ mobile: String) throws(DeviceFieldError) {
        let digits = mobile.hasPrefix("+") ? mobile.dropFirst() : Substring(mobile)
        guard !digits.isEmpty, digits.count <= 20, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw DeviceFieldError("mobile must be a phone number (digits, optionally a leading +, at most 20), got \(InputEcho.quoted(mobile))")
        }
    }
}
