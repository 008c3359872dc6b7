/// A strict JSON syntax check that also answers the one question APNs asks of a payload:
/// is it an object whose `aps` member is an object?
///
/// Written by hand because it runs on every request: it allocates nothing and reads each
/// byte once, where a full parse would build a tree only to throw it away.
public enum JSONShape {
    /// Nesting deeper than this is refused rather than recursed into.
    static let maximumDepth = 64

    /// `true` when `bytes` is one valid JSON object (surrounding whitespace allowed) with
    /// a top-level `"aps"` member whose value is an object.
    public static func isObjectWithAPS(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = Scanner(bytes: buffer)
            scanner.skipWhitespace()
            guard scanner.peek == UInt8(ascii: "{") else { return false }
            guard let hasAPS = scanner.object(depth: 0, topLevel: true) else { return false }
            scanner.skipWhitespace()
            return hasAPS && scanner.atEnd
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index >= bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        mutating func expect(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            index += 1
            return true
        }

        /// Scans a value; returns its first byte (the kind) or `nil` when it is malformed.
        mutating func value(depth: Int) -> UInt8? {
            skipWhitespace()
            guard let first = peek else { return nil }
            switch first {
            case UInt8(ascii: "{"): return object(depth: depth + 1, topLevel: false) == nil ? nil : first
            case UInt8(ascii: "["): return array(depth: depth + 1) ? first : nil
            case UInt8(ascii: "\""): return string() == nil ? nil : first
            case UInt8(ascii: "t"): return literal("true") ? first : nil
            case UInt8(ascii: "f"): return literal("false") ? first : nil
            case UInt8(ascii: "n"): return literal("null") ? first : nil
            default: return number() ? first : nil
            }
        }

        /// Scans an object; for the top level, reports whether `"aps"` holds an object.
        mutating func object(depth: Int, topLevel: Bool) -> Bool? {
            guard depth < JSONShape.maximumDepth, expect(UInt8(ascii: "{")) else { return nil }
            var hasAPS = false
            skipWhitespace()
            if expect(UInt8(ascii: "}")) { return false }
            while true {
                skipWhitespace()
                guard let key = string() else { return nil }
                skipWhitespace()
                guard expect(UInt8(ascii: ":")), let kind = value(depth: depth) else { return nil }
                if topLevel, key.count == 3, key.elementsEqual("aps".utf8) {
                    hasAPS = kind == UInt8(ascii: "{")
                }
                skipWhitespace()
                if expect(UInt8(ascii: "}")) { return hasAPS }
                guard expect(UInt8(ascii: ",")) else { return nil }
            }
        }

        mutating func array(depth: Int) -> Bool {
            guard depth < JSONShape.maximumDepth, expect(UInt8(ascii: "[")) else { return false }
            skipWhitespace()
            if expect(UInt8(ascii: "]")) { return true }
            while true {
                guard value(depth: depth) != nil else { return false }
                skipWhitespace()
                if expect(UInt8(ascii: "]")) { return true }
                guard expect(UInt8(ascii: ",")) else { return false }
            }
        }

        /// Scans a string; returns its raw (still escaped) contents.
        mutating func string() -> Slice<UnsafeBufferPointer<UInt8>>? {
            guard expect(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while let byte = peek {
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return bytes[start..<(index - 1)]
                case UInt8(ascii: "\\"):
                    index += 1
                    guard let escaped = peek else { return nil }
                    if escaped == UInt8(ascii: "u") {
                        for offset in 1...4 {
                            guard index + offset < bytes.count,
                                  APNSRequestValidator.isHexDigit(bytes[index + offset]) else { return nil }
                        }
                        index += 5
                    } else {
                        guard "\"\\/bfnrt".utf8.contains(escaped) else { return nil }
                        index += 1
                    }
                case 0..<0x20:
                    return nil
                default:
                    index += 1
                }
            }
            return nil
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
            guard bytes[index..<(index + count)].elementsEqual(expected) else { return false }
            index += count
            return true
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func number() -> Bool {
            _ = expect(UInt8(ascii: "-"))
            guard let first = peek, isDigit(first) else { return false }
            index += 1
            if first != UInt8(ascii: "0") { digits() }
            if expect(UInt8(ascii: ".")) {
                guard let next = peek, isDigit(next) else { return false }
                digits()
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard let next = peek, isDigit(next) else { return false }
                digits()
            }
            return true
        }

        mutating func digits() {
            while let byte = peek, isDigit(byte) { index += 1 }
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
    }
}
