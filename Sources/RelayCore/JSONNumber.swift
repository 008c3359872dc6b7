/// A JSON number kept as the text the client wrote, so it reaches an APNs payload exactly
/// as written: an id beyond 2^53 (or beyond Int64) loses no digits, and "1.50" stays "1.50".
/// Fields the relay reads as numbers convert on demand.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal, valid by JSON's grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    public let text: String

    public init(_ value: Int64) {
        text = String(value)
    }

    /// A finite value, written in Swift's shortest round-trip form ("0.5", "1e-07"), which is
    /// valid JSON.
    public init(_ value: Double) {
        precondition(value.isFinite, "JSON has no NaN or infinity")
        text = value.description
    }

    /// nil unless `literal` is a JSON number.
    public init?(literal: String) {
        let utf8 = Array(literal.utf8)
        guard utf8.withUnsafeBufferPointer({ Self.literalLength($0, from: 0) }) == utf8.count else { return nil }
        text = literal
    }

    /// Made by the parser from bytes it has already checked with `literalLength`.
    init(checkedLiteral text: String) {
        self.text = text
    }

    public var description: String { text }

    /// The value when it is an integer literal (no fraction or exponent) that fits Int64.
    public var int64: Int64? {
        guard !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) else {
            return nil
        }
        return Int64(text)
    }

    /// The nearest Double; infinite when the exponent is out of range ("1e400").
    public var double: Double {
        // `text` is a valid literal, which Double's parser always reads.
        Double(text) ?? .nan
    }

    /// The length of the JSON number starting at `start`, or nil when none starts there.
    /// Reads only the bytes of the number, so a parser calling it stays linear.
    static func literalLength(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        func digits() -> Int {
            let first = index
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            return index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return nil }
        }
        return index - start
    }
}
