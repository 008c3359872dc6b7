import Foundation

/// A parsed JSON document, kept exact enough to validate: integers stay integers, and a
/// boolean is never mistaken for a number.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses a request body. The error message says what is wrong, for a 400.
    public static func parse(_ bytes: [UInt8]) throws(JPushError) -> JSONValue {
        guard !bytes.isEmpty else { throw JPushError.missingParameter("request body is empty; a JSON object is required") }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw JPushError.illegalValue("request body is not valid JSON")
        }
    }

    /// The JSON type's name, for error messages ("expected a string, got a number").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}

/// A request body that must be a JSON object with known keys: typed accessors that turn
/// every mistake into a clear 400 in JPush's shape.
public struct JSONObjectReader: Sendable {
    public let fields: [String: JSONValue]
    /// Prefix for messages, e.g. "notification.ios." so errors name the full path.
    public let path: String

    public init(_ bytes: [UInt8]) throws(JPushError) {
        try self.init(JSONValue.parse(bytes), path: "")
    }

    public init(_ value: JSONValue, path: String) throws(JPushError) {
        guard case .object(let fields) = value else {
            throw JPushError.illegalValue("\(path.isEmpty ? "request body" : String(path.dropLast()))" + " must be a JSON object, got \(value.typeName)")
        }
        self.fields = fields
        self.path = path
    }

    /// Rejects keys outside `allowed` (code 1009), so a typo is an error, not a silent no-op.
    public func rejectUnknownKeys(allowed: Set<String>) throws(JPushError) {
        if let unknown = fields.keys.filter({ !allowed.contains($0) }).sorted().first {
            throw JPushError(status: 400, code: 1009, message: "unknown field \"\(path)\(unknown)\"")
        }
    }

    public func has(_ key: String) -> Bool {
        if let value = fields[key], value != .null { return true }
        return false
    }

    public func optionalString(_ key: String) throws(JPushError) -> String? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?: throw JPushError.illegalValue("\(path)\(key) must be a string, got \(other.typeName)")
        }
    }

    public func string(_ key: String) throws(JPushError) -> String {
        guard let value = try optionalString(key) else { throw JPushError.missingParameter("\(path)\(key) is required") }
        return value
    }

    public func optionalInt(_ key: String) throws(JPushError) -> Int64? {
        switch fields[key] {
        case nil, .null?: return nil
        case .int(let value)?: return value
        case let other?: throw JPushError.illegalValue("\(path)\(key) must be an integer, got \(other.typeName)")
        }
    }

    public func optionalBool(_ key: String) throws(JPushError) -> Bool? {
        switch fields[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case let other?: throw JPushError.illegalValue("\(path)\(key) must be true or false, got \(other.typeName)")
        }
    }
}
