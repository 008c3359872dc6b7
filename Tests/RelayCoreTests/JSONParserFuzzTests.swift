import Foundation
import Testing
import TestSupport
@testable import RelayCore

/// Seeded property tests of the request-body parser: generated documents and mutations of
/// them. `make test` runs a few thousand inputs; `make fuzz` and `make reliability` run
/// many more (`FuzzRun`).
@Suite struct JSONParserFuzzTests {
    let run = FuzzRun(defaultIterations: 3_000)

    /// Written with random whitespace and escapes, a generated document parses back to
    /// itself, building exactly one value per value; its canonical form is a fixed point.
    /// Deeper than the bound, it is refused at the first bracket past it.
    @Test func documentsRoundTripOrAreRefusedWhereTooDeep() throws {
        try run.forEachInput { random, label in
            let depthLimit = Int.random(in: 1...JSONParser.maximumDepth + 4, using: &random)
            var budget = Int.random(in: 1...200, using: &random)
            let value = JSONFuzzing.value(depth: 0, depthLimit: depthLimit, spine: Bool.random(using: &random), budget: &budget, using: &random)
            var writer = NoisyJSONWriter()
            writer.write(value, using: &random)
            var parser = JSONParser()
            if JSONFuzzing.depth(of: value) <= JSONParser.maximumDepth {
                let parsed = try parser.parse(writer.bytes)
                #expect(parsed == value, "\(label)")
                #expect(parser.valuesBuilt == JSONFuzzing.count(of: value), "\(label)")
                let canonical = CanonicalJSON.bytes(parsed)
                var again = JSONParser()
                #expect(CanonicalJSON.bytes(try again.parse(canonical)) == canonical, "\(label)")
            } else {
                let offset = JSONFuzzing.firstBracketTooDeep(writer.bytes)
                #expect(throws: JSONParser.Failure(reason: .tooDeep, offset: offset ?? -1), "\(label)") {
                    try parser.parse(writer.bytes)
                }
                #expect(parser.valuesBuilt <= (offset ?? 0) + 1, "\(label)")
            }
        }
    }

    /// Mutated documents never crash the parser; what it accepts is within the depth bound
    /// and round-trips, its work is at most a value per byte, a depth refusal is at the
    /// first bracket past the bound, and what Foundation's parser accepts within our limits
    /// (and without its leniency for trailing commas), it accepts too.
    @Test func mutatedTextIsAcceptedWithinBoundsOrRefusedWithAReason() throws {
        try run.forEachInput { random, label in
            var budget = Int.random(in: 1...60, using: &random)
            let depthLimit = Int.random(in: 1...JSONParser.maximumDepth, using: &random)
            var writer = NoisyJSONWriter()
            let value = JSONFuzzing.value(depth: 0, depthLimit: depthLimit, spine: Bool.random(using: &random), budget: &budget, using: &random)
            writer.write(value, using: &random)
            let bytes = JSONFuzzing.mutate(writer.bytes, using: &random)
            var parser = JSONParser()
            switch Result(catching: { () throws(JSONParser.Failure) in try parser.parse(bytes) }) {
            case .success(let parsed):
                #expect(JSONFuzzing.depth(of: parsed) <= JSONParser.maximumDepth, "\(label)")
                var again = JSONParser()
                #expect((try? again.parse(CanonicalJSON.bytes(parsed))) == parsed, "\(label)")
            case .failure(let error):
                #expect(error.offset >= 0 && error.offset <= bytes.count, "\(label)")
                if error.reason == .tooDeep {
                    #expect(error.offset == JSONFuzzing.firstBracketTooDeep(bytes), "\(label)")
                } else if JSONFuzzing.firstBracketTooDeep(bytes) == nil, !JSONFuzzing.hasLongNumber(bytes), !JSONFuzzing.hasTrailingComma(bytes),
                          !JSONFuzzing.looksLikeAnotherEncoding(bytes),
                          (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil {
                    Issue.record("Foundation accepts what the parser refused (\(error)):  \(label)")
                }
            }
            #expect(parser.valuesBuilt <= bytes.count, "\(label)")
        }
    }
}

/// Generates and mutates JSON for the property tests.
enum JSONFuzzing {
    /// A random document; on the `spine`, every value is a container down to `depthLimit`,
    /// so deep documents are common. Off it, `budget` bounds the containers.
    static func value(depth: Int, depthLimit: Int, spine: Bool, budget: inout Int, using random: inout SplitMix64) -> JSONValue {
        budget -= 1
        let container = depth < depthLimit && (spine || budget > 0)
        switch spine && container ? Int.random(in: 5..<8, using: &random) : Int.random(in: 0..<(container ? 8 : 5), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .number(numberLiteral(using: &random))
        case 3, 4: return .string(text(using: &random))
        case 5, 6:
            var fields: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                fields[text(using: &random)] = value(depth: depth + 1, depthLimit: depthLimit, spine: false, budget: &budget, using: &random)
            }
            if spine { fields["d"] = value(depth: depth + 1, depthLimit: depthLimit, spine: true, budget: &budget, using: &random) }
            return .object(fields)
        default:
            var items = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                value(depth: depth + 1, depthLimit: depthLimit, spine: false, budget: &budget, using: &random)
            }
            if spine { items.append(value(depth: depth + 1, depthLimit: depthLimit, spine: true, budget: &budget, using: &random)) }
            return .array(items)
        }
    }

    static func numberLiteral(using random: inout SplitMix64) -> JSONNumber {
        var text = Bool.random(using: &random) ? "-" : ""
        let digits = Int.random(in: 1...(Int.random(in: 0..<8, using: &random) == 0 ? 40 : 6), using: &random)
        text += String(Int.random(in: 1...9, using: &random))
        if digits == 1, Bool.random(using: &random) { text = text.hasPrefix("-") ? "-0" : "0" }
        for _ in 1..<digits { text += String(Int.random(in: 0...9, using: &random)) }
        if Int.random(in: 0..<3, using: &random) == 0 { text += "." + String(Int.random(in: 0...999_999, using: &random)) }
        if Int.random(in: 0..<4, using: &random) == 0 {
            text += ["e", "E", "e+", "e-", "E-"].randomElement(using: &random)! + String(Int.random(in: 0...500, using: &random))
        }
        return JSONNumber(literal: text)!
    }

    static let alphabet: [Unicode.Scalar] = [
        "a", "b", "z", "A", "0", "9", " ", "/", "\"", "\\", "\u{0}", "\u{1}", "\n", "\t", "\u{1F}", "\u{7F}", "é", "用", "\u{2028}",
        "\u{FEFF}", "\u{FFFF}", "😀", "\u{10FFFF}", "\u{301}",
    ]

    static func text(using random: inout SplitMix64) -> String {
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...8, using: &random) { text.append(alphabet.randomElement(using: &random)!) }
        return String(text)
    }

    static func depth(of value: JSONValue) -> Int {
        switch value {
        case .array(let items): 1 + (items.map(depth(of:)).max() ?? 0)
        case .object(let fields): 1 + (fields.values.map(depth(of:)).max() ?? 0)
        default: 0
        }
    }

    static func count(of value: JSONValue) -> Int {
        switch value {
        case .array(let items): 1 + items.map(count(of:)).reduce(0, +)
        case .object(let fields): 1 + fields.values.map(count(of:)).reduce(0, +)
        default: 1
        }
    }

    /// The offsets and bytes outside strings (as far as quotes and backslashes tell).
    static func outsideStrings(_ bytes: [UInt8]) -> [(offset: Int, byte: UInt8)] {
        var outside: [(offset: Int, byte: UInt8)] = []
        var inString = false
        var escaped = false
        for (offset, byte) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else {
                outside.append((offset, byte))
            }
        }
        return outside
    }

    /// Where an opening bracket outside strings first goes past `JSONParser.maximumDepth`,
    /// counted independently of the parser.
    static func firstBracketTooDeep(_ bytes: [UInt8]) -> Int? {
        var depth = 0
        for (offset, byte) in outsideStrings(bytes) {
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > JSONParser.maximumDepth { return offset }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return nil
    }

    /// Whether a comma comes right before a closing bracket, which Foundation's parser
    /// accepts and JSON does not.
    static func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
        let tokens = outsideStrings(bytes).map(\.byte).filter { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return zip(tokens, tokens.dropFirst()).contains { $0 == UInt8(ascii: ",") && ($1 == UInt8(ascii: "]") || $1 == UInt8(ascii: "}")) }
    }

    /// Whether Foundation would read these bytes as other than plain UTF-8: a byte order
    /// mark, or a NUL among the first four bytes (its UTF-16/32 detection). Request bodies
    /// are UTF-8 without a BOM (RFC 8259 §8.1), so the parser refuses both.
    static func looksLikeAnotherEncoding(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE])
            || bytes.prefix(4).contains(0)
    }

    /// Whether a run of number characters is longer than the parser takes.
    static func hasLongNumber(_ bytes: [UInt8]) -> Bool {
        var run = 0
        for byte in bytes {
            run = Array("0123456789+-.eE".utf8).contains(byte) ? run + 1 : 0
            if run > JSONParser.maximumNumberLength { return true }
        }
        return false
    }

    static let interestingBytes = Array(#"{}[],:"\/ 0123456789-+.eEtrufalsnu"#.utf8) + [0x00, 0x09, 0x0A, 0x1F, 0x7F, 0x80, 0xC3, 0xED, 0xFF]

    /// One to four edits: a byte replaced, inserted or deleted, a span deleted or repeated,
    /// the text cut short, or a run of brackets that nests far too deep.
    static func mutate(_ original: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        var bytes = original
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let at = Int.random(in: 0...bytes.count, using: &random)
            switch Int.random(in: 0..<7, using: &random) {
            case 0 where at < bytes.count: bytes[at] = interestingBytes.randomElement(using: &random)!
            case 1: bytes.insert(interestingBytes.randomElement(using: &random)!, at: at)
            case 2 where at < bytes.count: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &random)))
            case 3 where at < bytes.count:
                let span = Array(bytes[at..<min(bytes.count, at + Int.random(in: 1...40, using: &random))])
                bytes.insert(contentsOf: span, at: Int.random(in: 0...bytes.count, using: &random))
            case 4: bytes.removeSubrange(at...)
            case 5:
                let opener = [Array("[".utf8), Array(#"{"a":"#.utf8), Array(#"[{"b":["#.utf8)].randomElement(using: &random)!
                bytes.insert(contentsOf: Array(repeating: opener, count: Int.random(in: 1...600, using: &random)).joined(), at: at)
            default: break
            }
        }
        return bytes
    }
}

/// Writes JSON the way clients might: random whitespace between tokens, and each string
/// character raw or escaped (`\n`, `\/`, `\u00e9`, surrogate pairs) at random.
struct NoisyJSONWriter {
    private(set) var bytes: [UInt8] = []

    mutating func write(_ value: JSONValue, using random: inout SplitMix64) {
        space(using: &random)
        switch value {
        case .null, .bool, .number: bytes += CanonicalJSON.bytes(value)
        case .string(let text): string(text, using: &random)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            space(using: &random)
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(item, using: &random)
            }
            space(using: &random)
            bytes.append(UInt8(ascii: "]"))
        case .object(let fields):
            bytes.append(UInt8(ascii: "{"))
            space(using: &random)
            for (index, (key, item)) in fields.shuffled(using: &random).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                space(using: &random)
                string(key, using: &random)
                space(using: &random)
                bytes.append(UInt8(ascii: ":"))
                write(item, using: &random)
            }
            space(using: &random)
            bytes.append(UInt8(ascii: "}"))
        }
        space(using: &random)
    }

    private mutating func space(using random: inout SplitMix64) {
        guard Int.random(in: 0..<4, using: &random) == 0 else { return }
        for _ in 0..<Int.random(in: 1...3, using: &random) { bytes.append([0x20, 0x09, 0x0A, 0x0D].randomElement(using: &random)!) }
    }

    private mutating func string(_ text: String, using random: inout SplitMix64) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            let mustEscape = scalar.value < 0x20 || scalar == "\"" || scalar == "\\"
            if !mustEscape, Int.random(in: 0..<4, using: &random) > 0 {
                bytes += Array(String(scalar).utf8)
            } else if let short = ["\"": "\\\"", "\\": "\\\\", "/": "\\/", "\n": "\\n", "\t": "\\t"][scalar], Bool.random(using: &random) {
                bytes += Array(short.utf8)
            } else {
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16, uppercase: Bool.random(using: &random))
                    bytes += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
