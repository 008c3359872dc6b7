/// A parsed JSON document, kept exact enough to validate and to pass on: numbers keep the
/// text the client wrote, and a boolean is never mistaken for a number.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public static func int(_ value: Int64) -> JSONValue { .number(JSONNumber(value)) }

    /// A finite number.
    public static func double(_ value: Double) -> JSONValue { .number(JSONNumber(value)) }

    /// Parses a request body (`JSONParser`: linear, at most `JSONParser.maximumDepth` deep).
    /// The error message says what is wrong and where, for a 400 (code 1003).
    public static func parse(_ bytes: [UInt8]) throws(JPushError) -> JSONValue {
        try parse(bytes[...])
    }

    public static func parse(_ bytes: ArraySlice<UInt8>) throws(JPushError) -> JSONValue {
        guard !bytes.isEmpty else { throw JPushError.missingParameter("request body is empty; a JSON object is required") }
        var parser = JSONParser()
        do {
            return try parser.parse(bytes)
        } catch {
            switch error.reason {
            case .tooDeep:
                throw JPushError.illegalValue(
                    "request body nests objects and arrays more than \(JSONParser.maximumDepth) levels deep (at byte \(error.offset))")
            case .syntax(let reason):
                throw JPushError.illegalValue("request body is not valid JSON: \(reason) at byte \(error.offset)")
            }
        }
    }

    /// The value when it is an integer literal that fits Int64.
    public var int64: Int64? {
        if case .number(let number) = self { number.int64 } else { nil }
    }

    /// The JSON type's name, for error messages ("expected a string, got a number").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
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
            throw JPushError(status: 400, code: 1009, message: "unknown field \(InputEcho.quoted(path + unknown))")
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
        case let value? where value.int64 != nil: return value.int64
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
