import RelayCore

/// The `{"registration_ids":{"add":[…],"remove":[…]}}` body of the tag and alias calls.
public struct RegistrationIDChange: Sendable, Equatable {
    public static let maxPerList = 1000

    public var add: [String]
    public var remove: [String]

    public init(add: [String], remove: [String]) {
        self.add = add
        self.remove = remove
    }

    /// - Parameters:
    ///   - allowAdd: false for aliases, where only `remove` exists.
    public init(_ body: JSONObjectReader, allowAdd: Bool) throws {
        try body.rejectUnknownKeys(allowed: ["registration_ids"])
        guard let value = body.fields["registration_ids"], value != .null else {
            throw JPushError.missingParameter("registration_ids is required")
        }
        let lists = try JSONObjectReader(value, path: "registration_ids.")
        try lists.rejectUnknownKeys(allowed: allowAdd ? ["add", "remove"] : ["remove"])
        add = try Self.list(lists.fields["add"], field: "registration_ids.add")
        remove = try Self.list(lists.fields["remove"], field: "registration_ids.remove")
        if let both = add.first(where: Set(remove).contains) {
            throw DeviceFieldError("registration_id \(InputEcho.quoted(both)) is both added and removed")
        }
    }

    /// A list of at most 1000 registration ids, without repeats.
    public static func list(_ value: JSONValue?, field: String) throws(DeviceFieldError) -> [String] {
        switch value {
        case nil, .null?: return []
        case .array(let items)?:
            guard items.count <= maxPerList else {
                throw DeviceFieldError("\(field) has \(items.count) registration ids; at most \(maxPerList) are allowed")
            }
            var ids: [String] = []
            var seen: Set<String> = []
            for item in items {
                guard case .string(let id) = item else { throw DeviceFieldError("\(field) must be a list of strings, found \(item.typeName)") }
                if seen.insert(id).inserted { ids.append(id) }
            }
            return ids
        case let other?:
            throw DeviceFieldError("\(field) must be a list of strings, got \(other.typeName)")
        }
    }
}
