/// Reads JSON text (RFC 8259) into a `JSONValue` in one pass: each byte is read once and
/// each value built once, so the cost is linear in the text's size, and nesting deeper
/// than `maximumDepth` is refused at the bracket that goes too deep, before anything
/// inside it is read.
///
/// Foundation's `JSONDecoder` through `JSONValue`'s former `Decodable` conformance tried
/// each type in turn at every level, re-decoding subtrees: a 1 KB body of depth 500 took
/// over a second.
public struct JSONParser {
    /// Objects and arrays nested in a request body, counting the body's own object. A push
    /// needs 4 to reach `notification.ios.extras`, which leaves 16 levels inside extras.
    public static let maximumDepth = 20
    /// The longest number literal, in bytes: enough for any id, fraction and exponent.
    public static let maximumNumberLength = 100

    /// Why text was refused, and where.
    public struct Failure: Error, Sendable, Equatable {
        public enum Reason: Sendable, Equatable {
            case syntax(String)
            case tooDeep
        }
        public var reason: Reason
        /// The offset of the byte where the text stopped being acceptable.
        public var offset: Int
    }

    public let maximumDepth: Int
    /// Values built so far (scalars and containers): the parser's work, at most one per byte.
    public private(set) var valuesBuilt = 0

    public init(maximumDepth: Int = JSONParser.maximumDepth) {
        self.maximumDepth = maximumDepth
    }

    /// The one JSON value that `bytes` holds, surrounding whitespace allowed.
    public mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue {
        var reader = Reader(bytes: bytes, maximumDepth: maximumDepth)
        defer { valuesBuilt += reader.valuesBuilt }
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.failure("unexpected text after the JSON value") }
        return value
    }

    public mutating func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(Failure) in try parse(buffer) }
    }

    public mutating func parse(_ bytes: ArraySlice<UInt8>) throws(Failure) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(Failure) in try parse(buffer) }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let maximumDepth: Int
        var index = 0
        var valuesBuilt = 0

        init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        func failure(_ reason: String) -> Failure {
            Failure(reason: .syntax(reason), offset: index)
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// The value at `index`, which sits `depth` containers deep.
        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of text") }
            valuesBuilt += 1
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw failure("unexpected character")
            }
        }

        /// Steps over the opening bracket of a container at `depth`, refusing it when too deep.
        mutating func open(depth: Int) throws(Failure) {
            guard depth <= maximumDepth else { throw Failure(reason: .tooDeep, offset: index) }
            index += 1
            skipWhitespace()
        }

        /// Steps over `,` (true) or the closing `bracket` (false).
        mutating func next(closing bracket: UInt8) throws(Failure) -> Bool {
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of text") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1; return true
            case bracket: index += 1; return false
            default: throw failure("expected ',' or '\(Character(Unicode.Scalar(bracket)))'")
            }
        }

        mutating func object(depth: Int) throws(Failure) -> JSONValue {
            try open(depth: depth)
            var fields: [String: JSONValue] = [:]
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(fields)
            }
            repeat {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a string key") }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
                index += 1
                // A repeated key: the last value wins, as in JSONDecoder and PostgreSQL's jsonb.
                fields[key] = try value(depth: depth)
            } while try next(closing: UInt8(ascii: "}"))
            return .object(fields)
        }

        mutating func array(depth: Int) throws(Failure) -> JSONValue {
            try open(depth: depth)
            var items: [JSONValue] = []
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            repeat {
                items.append(try value(depth: depth))
            } while try next(closing: UInt8(ascii: "]"))
            return .array(items)
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
            let count = word.utf8CodeUnitCount
            let matches = bytes.count - index >= count && word.withUTF8Buffer { expected in
                bytes[index..<index + count].elementsEqual(expected)
            }
            guard matches else { throw failure("unexpected character") }
            index += count
            return value
        }

        mutating func number() throws(Failure) -> JSONNumber {
            guard let length = JSONNumber.literalLength(bytes, from: index) else { throw failure("malformed number") }
            guard length <= JSONParser.maximumNumberLength else {
                throw failure("number longer than \(JSONParser.maximumNumberLength) characters")
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<index + length]), as: UTF8.self)
            index += length
            return JSONNumber(checkedLiteral: text)
        }

        /// The string whose opening quote is at `index`.
        mutating func string() throws(Failure) -> String {
            index += 1
            let start = index
            // Most strings have no escapes: validate them in place.
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 {
                index += 1
            }
            guard index < bytes.count else { throw failure("unterminated string") }
            if bytes[index] == UInt8(ascii: "\"") {
                guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self) else {
                    throw Failure(reason: .syntax("string is not UTF-8"), offset: start)
                }
                index += 1
                return text
            }
            var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: utf8, as: UTF8.self) else {
                        throw Failure(reason: .syntax("string is not UTF-8"), offset: start)
                    }
                    index += 1
                    return text
                case UInt8(ascii: "\\"):
                    try escape(into: &utf8)
                case 0..<0x20:
                    throw failure("control character in a string (escape it)")
                default:
                    utf8.append(byte)
                    index += 1
                }
            }
            throw failure("unterminated string")
        }

        /// Decodes the escape at `index` (its backslash) onto `utf8`.
        mutating func escape(into utf8: inout [UInt8]) throws(Failure) {
            guard index + 1 < bytes.count else { throw failure("unterminated string") }
            let escaped = bytes[index + 1]
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                let scalar = try unicodeEscape()
                utf8.append(contentsOf: String(Character(scalar)).utf8)
                return
            default: throw failure("invalid escape")
            }
            index += 2
        }

        /// `\uXXXX` at `index`, or a surrogate pair `\uD83D\uDE00`; steps past it.
        mutating func unicodeEscape() throws(Failure) -> Unicode.Scalar {
            let high = try hexQuad(at: index + 2)
            index += 6
            if (0xDC00...0xDFFF).contains(high) { throw failure("unpaired surrogate in \\u escape") }
            guard (0xD800...0xDBFF).contains(high) else {
                // Neither half of a pair, so always a scalar.
                return Unicode.Scalar(high) ?? "\u{FFFD}"
            }
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("unpaired surrogate in \\u escape")
            }
            let low = try hexQuad(at: index + 2)
            guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate in \\u escape") }
            index += 6
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
        }

        func hexQuad(at start: Int) throws(Failure) -> UInt32 {
            guard start + 4 <= bytes.count else { throw failure("unterminated \\u escape") }
            var value: UInt32 = 0
            for byte in bytes[start..<start + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw failure("invalid \\u escape")
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
    }
}
