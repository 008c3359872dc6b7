import RelayCore

/// A fast parser for the one-line JSON objects of an NDJSON import: an object whose values
/// are strings, integers, booleans, null, or arrays of those. Anything else (nested objects,
/// fractions, exponents) returns nil and the caller falls back to `JSONValue.parse`, so the
/// result is always what the general parser would give. Foundation's decoder costs tens of
/// microseconds a line, which is most of a million-line import.
struct FlatJSONParser {
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    private init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    /// The object, or nil when the line is not valid flat JSON (let the general parser decide).
    static func parseObject(_ line: ArraySlice<UInt8>) -> JSONValue? {
        var parser = FlatJSONParser(line)
        guard let object = parser.object() else { return nil }
        parser.skipSpace()
        return parser.index == line.endIndex ? object : nil
    }

    private mutating func skipSpace() {
        while index < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.endIndex, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func object() -> JSONValue? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var fields: [String: JSONValue] = [:]
        if consume(UInt8(ascii: "}")) { return .object(fields) }
        repeat {
            skipSpace()
            guard let key = string(), consume(UInt8(ascii: ":")), let value = scalarOrArray(allowArray: true) else { return nil }
            fields[key] = value
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}")) ? .object(fields) : nil
    }

    private mutating func scalarOrArray(allowArray: Bool) -> JSONValue? {
        skipSpace()
        guard index < bytes.endIndex else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return string().map(JSONValue.string)
        case UInt8(ascii: "["):
            guard allowArray else { return nil }
            index += 1
            var items: [JSONValue] = []
            if consume(UInt8(ascii: "]")) { return .array(items) }
            repeat {
                guard let item = scalarOrArray(allowArray: false) else { return nil }
                items.append(item)
            } while consume(UInt8(ascii: ","))
            return consume(UInt8(ascii: "]")) ? .array(items) : nil
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return integer()
        default: return nil
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard bytes.endIndex - index >= count else { return nil }
        let matches = word.withUTF8Buffer { expected in bytes[index..<index + count].elementsEqual(expected) }
        guard matches else { return nil }
        index += count
        return value
    }

    /// Integers only; a fraction or exponent (or a leading zero) is left to the general parser.
    private mutating func integer() -> JSONValue? {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        let digits = index - digitsStart
        guard digits > 0, digits <= 18, !(digits > 1 && bytes[digitsStart] == UInt8(ascii: "0")) else { return nil }
        if index < bytes.endIndex, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) { return nil }
        return Int64(String(decoding: bytes[start..<index], as: UTF8.self)).map(JSONValue.int)
    }

    /// A JSON string at `index` (which must be its opening quote).
    private mutating func string() -> String? {
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.endIndex, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 {
            index += 1
        }
        guard index < bytes.endIndex else { return nil }
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return String(validating: bytes[start..<index - 1], as: UTF8.self)
        }
        guard bytes[index] == UInt8(ascii: "\\") else { return nil }
        var utf8 = Array(bytes[start..<index])
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.endIndex else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                default:
                    // \u escapes (and surrogate pairs) are rare here: the general parser has them.
                    return nil
                }
            case 0..<0x20:
                return nil
            default:
                utf8.append(byte)
            }
        }
        return nil
    }
}
