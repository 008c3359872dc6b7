import Testing
@testable import RelayCore

@Suite struct JSONParserTests {
    func parse(_ text: String, maximumDepth: Int = JSONParser.maximumDepth) throws(JSONParser.Failure) -> JSONValue {
        var parser = JSONParser(maximumDepth: maximumDepth)
        return try parser.parse(Array(text.utf8))
    }

    func failure(_ text: String) -> JSONParser.Failure? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsEveryKindOfValue() throws {
        let value = try parse(#" {"s":"a\"b\\c\/d\n\u00e9\ud83d\ude00用户","n":[0,-7,1.5,2e-3],"t":true,"f":false,"z":null,"o":{},"a":[]} "#)
        #expect(value == .object([
            "s": .string("a\"b\\c/d\né😀用户"),
            "n": .array([.int(0), .int(-7), .number(JSONNumber(literal: "1.5")!), .number(JSONNumber(literal: "2e-3")!)]),
            "t": .bool(true), "f": .bool(false), "z": .null, "o": .object([:]), "a": .array([]),
        ]))
    }

    @Test func numbersKeepTheTextAsWritten() throws {
        for literal in ["9007199254740993", "-9223372036854775809", "12345678901234567890123", "1.50", "-0", "1E+2", "0.1e-400", "1e400"] {
            let value = try parse("[\(literal)]")
            #expect(value == .array([.number(try #require(JSONNumber(literal: literal)))]), "\(literal)")
            #expect(CanonicalJSON.bytes(value) == Array("[\(literal)]".utf8), "\(literal)")
        }
        #expect(try parse("9007199254740993").int64 == 9_007_199_254_740_993)
        #expect(try parse("12345678901234567890").int64 == nil)
        #expect(try parse("1.0").int64 == nil)
        #expect(JSONNumber(literal: "1e400")?.double == .infinity)
    }

    @Test func malformedTextSaysWhatAndWhere() {
        let cases: [(String, String, Int)] = [
            (#"{"a":}"#, "unexpected character", 5),
            (#"{"a":1,}"#, "expected a string key", 7),
            (#"[1,]"#, "unexpected character", 3),
            (#"[1 2]"#, "expected ',' or ']'", 3),
            (#"{"a" 1}"#, "expected ':'", 5),
            (#"{"a":1"#, "unexpected end of text", 6),
            (#""abc"#, "unterminated string", 4),
            ("\"a\u{1}\"", "control character in a string (escape it)", 2),
            (#""\x""#, "invalid escape", 1),
            (#""\ud800""#, "unpaired surrogate in \\u escape", 7),
            (#""\udc00x""#, "unpaired surrogate in \\u escape", 7),
            (#""\u12g4""#, "invalid \\u escape", 1),
            ("01", "malformed number", 0),
            ("1.", "malformed number", 0),
            ("-", "malformed number", 0),
            ("tru", "unexpected character", 0),
            ("{} {}", "unexpected text after the JSON value", 3),
            ("[" + String(repeating: "1", count: 101) + "]", "number longer than 100 characters", 1),
        ]
        for (text, reason, offset) in cases {
            #expect(failure(text) == JSONParser.Failure(reason: .syntax(reason), offset: offset), "\(text)")
        }
        var invalidUTF8 = Array(#"["ok","#.utf8)
        invalidUTF8 += [UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\""), UInt8(ascii: "]")]
        var parser = JSONParser()
        #expect(throws: JSONParser.Failure(reason: .syntax("string is not UTF-8"), offset: 7)) { try parser.parse(invalidUTF8) }
    }

    @Test func aRepeatedKeyKeepsTheLastValue() throws {
        #expect(try parse(#"{"a":1,"a":2}"#) == .object(["a": .int(2)]))
    }

    @Test func nestingUpToTheBoundIsRead() throws {
        let depth = JSONParser.maximumDepth
        let text = String(repeating: #"{"a":["#, count: depth / 2) + "1" + String(repeating: "]}", count: depth / 2)
        var value = try parse(text)
        for _ in 0..<depth / 2 {
            guard case .object(let fields) = value, case .array(let items)? = fields["a"] else { Issue.record("shape"); return }
            value = items[0]
        }
        #expect(value == .int(1))
    }

    /// The issue's bodies: 1 KB of depth 500, and 8 KB of many depth-500 subtrees. Each is
    /// refused at the bracket past the bound, having built only the values on the way there.
    @Test func deepNestingIsRefusedAtTheFirstBracketTooDeep() {
        let deepArrays = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        let deepObjects = String(repeating: #"{"a":"#, count: 200) + "1" + String(repeating: "}", count: 200)
        let subtree = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        let manySubtrees = "[" + Array(repeating: subtree, count: 8).joined(separator: ",") + "]"
        for (text, offset) in [(deepArrays, 20), (deepObjects, 100), (manySubtrees, 20)] {
            var parser = JSONParser()
            #expect(throws: JSONParser.Failure(reason: .tooDeep, offset: offset)) { try parser.parse(Array(text.utf8)) }
            #expect(parser.valuesBuilt == JSONParser.maximumDepth + 1)
        }
    }

    @Test func theWorkIsOneStepPerValue() throws {
        let count = 5_000
        let text = "[" + (0..<count).map { #"{"k\#($0)":[\#($0),"v",null]}"# }.joined(separator: ",") + "]"
        var parser = JSONParser()
        _ = try parser.parse(Array(text.utf8))
        // The outer array, and per entry an object, an array and its three scalars.
        #expect(parser.valuesBuilt == 1 + count * 5)
    }

    @Test func requestBodiesGetJPushErrors() {
        let deep = Array((String(repeating: "[", count: 500) + String(repeating: "]", count: 500)).utf8)
        #expect(throws: JPushError(status: 400, code: 1003, message: "request body nests objects and arrays more than 20 levels deep (at byte 20)")) {
            try JSONValue.parse(deep)
        }
        #expect(throws: JPushError(status: 400, code: 1003, message: "request body is not valid JSON: expected a string key at byte 1")) {
            try JSONValue.parse(Array("{".utf8))
        }
    }
}
