import RelayCore

/// Who a push goes to: every device of the app, or the devices matching a filter.
///
/// The store layer turns a filter into SQL; every non-empty list of the filter must hold
/// (they are ANDed), as JPush defines it.
public enum Audience: Sendable, Hashable {
    case all
    case filter(AudienceFilter)

    /// True for pushes naming devices (alias or registration_id): their audience is small
    /// (at most 1000 ids or aliases), so they take the fast lane that never waits behind
    /// broadcasts. Tag pushes and `all` are broadcasts.
    public var isTargeted: Bool {
        guard case .filter(let filter) = self else { return false }
        return !filter.aliases.isEmpty || !filter.registrationIDs.isEmpty
    }

    /// Audience keys JPush documents whose devices only JPush knows (its user segments, A/B
    /// tests, Live Activity ids).
    static let unresolvableKeys: Set<String> = ["segment", "abtest", "live_activity_id"]

    /// Reads `audience` from a push body.
    ///
    /// - Throws: 1002 when absent, 1003 for a wrong shape, a list over its limit, an invalid
    ///   tag or alias, or an object that names nobody; 1009 for keys JPush has but we cannot
    ///   resolve (`segment`, `abtest`, `live_activity_id`) and for keys JPush does not document.
    static func parse(_ value: JSONValue?) throws(JPushError) -> Audience {
        switch value {
        case nil, .null?:
            throw JPushError.missingParameter("audience is required")
        case .string("all")?:
            return .all
        case .object(let fields)?:
            let reader = try JSONObjectReader(.object(fields), path: "audience.")
            // Documented by JPush, but resolved only by JPush: ignoring one would change who
            // gets the push, so it is refused, saying so.
            if let unresolvable = CanonicalJSON.sorted(fields.filter { $0.value != .null }.keys).first(where: unresolvableKeys.contains) {
                throw JPushError(status: 400, code: 1009, message:
                    "audience.\(unresolvable) is JPush's and cannot be resolved by PushRelay; use tag, tag_and, tag_not, alias or registration_id")
            }
            try reader.rejectUnknownKeys(allowed: unresolvableKeys.union(["tag", "tag_and", "tag_not", "alias", "registration_id"]))
            let filter = AudienceFilter(
                tags: try labels(reader, "tag", limit: PushLimits.tagsPerList),
                tagsAnd: try labels(reader, "tag_and", limit: PushLimits.tagsPerList),
                tagsNot: try labels(reader, "tag_not", limit: PushLimits.tagsPerList),
                aliases: try labels(reader, "alias", limit: PushLimits.aliases),
                registrationIDs: try registrationIDs(reader))
            guard !filter.isEmpty else {
                throw JPushError.illegalValue(
                    "audience must be \"all\" or name at least one of tag, tag_and, tag_not, alias, registration_id")
            }
            return .filter(filter)
        case let other?:
            throw JPushError.illegalValue("audience must be \"all\" or an object, got \(other.shortText)")
        }
    }

    /// A list of tags or aliases, checked and without repeats (first occurrence kept).
    private static func labels(_ reader: JSONObjectReader, _ key: String, limit: Int) throws(JPushError) -> [String] {
        let values = try list(reader, key, limit: limit)
        for value in values { try AudienceLabel.validate(value, field: reader.name(key)) }
        return values
    }

    private static func registrationIDs(_ reader: JSONObjectReader) throws(JPushError) -> [String] {
        let values = try list(reader, "registration_id", limit: PushLimits.registrationIDs)
        for value in values { try checkRegistrationID(value, field: reader.name("registration_id")) }
        return values
    }

    /// A registration id is opaque here: ids that are not of this app simply match nothing.
    static func checkRegistrationID(_ value: String, field: String) throws(JPushError) {
        guard !value.isEmpty else { throw JPushError.illegalValue("\(field) contains an empty string") }
        guard value.utf8.count <= PushLimits.registrationIDBytes else {
            throw JPushError.illegalValue("\(field) \"\(value.prefix(16))…\" is longer than \(PushLimits.registrationIDBytes) bytes")
        }
    }

    private static func list(_ reader: JSONObjectReader, _ key: String, limit: Int) throws(JPushError) -> [String] {
        let values = try reader.optionalStringArray(key) ?? []
        guard values.count <= limit else {
            throw JPushError.illegalValue("\(reader.name(key)) has \(values.count) entries; at most \(limit) are allowed")
        }
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }
}

/// The lists of an audience object; an empty list means "not given". A device matches when
/// it satisfies every given list, so `tagsNot` alone means "every device without these tags".
public struct AudienceFilter: Sendable, Hashable {
    /// Devices with any of these tags.
    public var tags: [String]
    /// Devices with all of these tags.
    public var tagsAnd: [String]
    /// Devices with none of these tags.
    public var tagsNot: [String]
    /// Devices with any of these aliases.
    public var aliases: [String]
    /// These devices.
    public var registrationIDs: [String]

    public init(tags: [String] = [], tagsAnd: [String] = [], tagsNot: [String] = [], aliases: [String] = [], registrationIDs: [String] = []) {
        self.tags = tags
        self.tagsAnd = tagsAnd
        self.tagsNot = tagsNot
        self.aliases = aliases
        self.registrationIDs = registrationIDs
    }

    public var isEmpty: Bool {
        tags.isEmpty && tagsAnd.isEmpty && tagsNot.isEmpty && aliases.isEmpty && registrationIDs.isEmpty
    }
}
