import RelayCore

/// Typed accessors the push body needs beyond RelayCore's strings, integers and booleans.
extension JSONObjectReader {
    /// The full path of `key`, e.g. "notification.ios.badge", for messages.
    func name(_ key: String) -> String { path + key }

    /// A nested object, read with its own path so its errors name the full path.
    func optionalObject(_ key: String) throws(JPushError) -> JSONObjectReader? {
        guard let value = fields[key], value != .null else { return nil }
        guard case .object = value else {
            throw JPushError.illegalValue("\(name(key)) must be an object, got \(value.typeName)")
        }
        return try JSONObjectReader(value, path: name(key) + ".")
    }

    func optionalArray(_ key: String) throws(JPushError) -> [JSONValue]? {
        switch fields[key] {
        case nil, .null?: return nil
        case .array(let items)?: return items
        case let other?: throw JPushError.illegalValue("\(name(key)) must be an array, got \(other.typeName)")
        }
    }

    /// An array whose every element is a string.
    public func optionalStringArray(_ key: String) throws(JPushError) -> [String]? {
        guard let items = try optionalArray(key) else { return nil }
        var strings: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                throw JPushError.illegalValue("\(name(key))[\(index)] must be a string, got \(item.typeName)")
            }
            strings.append(text)
        }
        return strings
    }

    func optionalNumber(_ key: String) throws(JPushError) -> Double? {
        switch fields[key] {
        case nil, .null?: return nil
        case .number(let number)?: return number.double
        case let other?: throw JPushError.illegalValue("\(name(key)) must be a number, got \(other.typeName)")
        }
    }

    /// An integer within `range`.
    func optionalInt(_ key: String, in range: ClosedRange<Int>) throws(JPushError) -> Int? {
        guard let number = try optionalInt(key) else { return nil }
        guard number >= Int64(range.lowerBound), number <= Int64(range.upperBound) else {
            throw JPushError.illegalValue("\(name(key)) must be from \(range.lowerBound) to \(range.upperBound), got \(number)")
        }
        return Int(number)
    }

    /// APNs flags such as `content-available`: JSON booleans, or 0/1 as JPush's SDKs send
    /// them (the Python SDK writes `"content-available": 1`).
    func optionalFlag(_ key: String) throws(JPushError) -> Bool? {
        switch fields[key] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case .number(let number)? where number.int64 == 0: return false
        case .number(let number)? where number.int64 == 1: return true
        case let other?:
            throw JPushError.illegalValue("\(name(key)) must be true, false, 0 or 1, got \(other.shortText)")
        }
    }

    /// An object of free-form values (`extras`).
    func optionalFreeObject(_ key: String) throws(JPushError) -> [String: JSONValue]? {
        switch fields[key] {
        case nil, .null?: return nil
        case .object(let members)?: return members
        case let other?: throw JPushError.illegalValue("\(name(key)) must be an object, got \(other.typeName)")
        }
    }
}

extension JSONValue {
    /// The value for an error message: numbers, booleans and short strings as JSON text,
    /// anything else by its type.
    var shortText: String {
        switch self {
        case .number, .bool, .null: String(decoding: CanonicalJSON.bytes(self), as: UTF8.self)
        case .string(let text) where text.utf8.count <= 64: String(decoding: CanonicalJSON.bytes(self), as: UTF8.self)
        default: typeName
        }
    }
}
