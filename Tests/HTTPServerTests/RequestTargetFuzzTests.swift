import HTTPServer
import RelayAPI
import RelayCore
import TestSupport
import Testing

/// Seeded property tests of the request-target parser (`FuzzRun`: a few thousand inputs in
/// `make test`, many more in `make fuzz` and `make reliability`).
@Suite struct RequestTargetFuzzTests {
    let run = FuzzRun(defaultIterations: 20_000)

    /// A path and query parameters, percent-encoded (spaces in queries as `+` or `%20`,
    /// other bytes escaped or not at random), with an optional fragment and absolute form,
    /// parse back to themselves; a repeated name keeps its last value.
    @Test func encodedTargetsRoundTrip() throws {
        try run.forEachInput { random, label in
            let segments = (0..<Int.random(in: 0...4, using: &random)).map { _ in TargetFuzzing.text(using: &random) }
            var target = segments.map { "/" + TargetFuzzing.encode($0, query: false, using: &random) }.joined()
            if target.isEmpty || Bool.random(using: &random) { target += "/" }
            var expectedQuery: [String: String] = [:]
            var pairs: [String] = []
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                let name = Int.random(in: 0..<4, using: &random) == 0 ? "dup" : TargetFuzzing.text(using: &random)
                let value = TargetFuzzing.text(using: &random)
                expectedQuery[name] = value
                pairs.append(TargetFuzzing.encode(name, query: true, using: &random) + "=" + TargetFuzzing.encode(value, query: true, using: &random))
                if Int.random(in: 0..<5, using: &random) == 0 { pairs.append("") }
            }
            if !pairs.isEmpty || Bool.random(using: &random) { target += "?" + pairs.joined(separator: "&") }
            if Int.random(in: 0..<4, using: &random) == 0 { target += "#" + TargetFuzzing.text(using: &random) }
            if Int.random(in: 0..<4, using: &random) == 0 { target = "http://relay.example:8080" + target }

            let parsed = try RequestTarget(parsing: target)
            let expectedPath = "/" + segments.joined(separator: "/")
            #expect(parsed.path == expectedPath || parsed.path == expectedPath + "/", "\(label): \(target)")
            #expect(parsed.query == expectedQuery, "\(label): \(target)")
        }
    }

    /// Mutated targets parse or are refused with a 400 (code 1003), never anything else.
    @Test func mutatedTargetsParseOrAreRefusedWith1003() {
        run.forEachInput { random, label in
            var scalars = Array("/v3/devices/a%20b?platform=ios&tag=x+y&alias=%E7%94%A8#f".unicodeScalars)
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let at = Int.random(in: 0...scalars.count, using: &random)
                let scalar = TargetFuzzing.alphabet.randomElement(using: &random)!
                switch Int.random(in: 0..<3, using: &random) {
                case 0 where at < scalars.count: scalars[at] = scalar
                case 1 where at < scalars.count: scalars.remove(at: at)
                default: scalars.insert(scalar, at: at)
                }
            }
            var uri = String.UnicodeScalarView()
            uri.append(contentsOf: scalars)
            switch Result(catching: { () throws(HTTPRejection) in try RequestTarget(parsing: String(uri)) }) {
            case .success(let parsed): #expect(!parsed.path.isEmpty, "\(label)")
            case .failure(let rejection):
                let error = JPushRejection.error(for: rejection)
                #expect(error.status == 400 && error.code == 1003, "\(label)")
            }
        }
    }
}

enum TargetFuzzing {
    /// Characters a target may carry, including every delimiter, `%`, `+`, non-ASCII and a
    /// combining mark (which must not glue itself to a delimiter).
    static let alphabet: [Unicode.Scalar] = [
        "a", "Z", "0", "-", ".", "_", "~", " ", "/", "?", "#", "&", "=", "+", "%", ":", "@", "\"", "\u{7F}", "é", "用", "😀", "\u{301}", "\u{0}",
        "F", "2",
    ]

    static func text(using random: inout SplitMix64) -> String {
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...6, using: &random) { text.append(alphabet.randomElement(using: &random)!) }
        return String(text)
    }

    /// Percent-encodes what must be (delimiters, `%`, `+` in queries, controls), and at
    /// random also what need not be; a space in a query becomes `+` or `%20`.
    static func encode(_ text: String, query: Bool, using random: inout SplitMix64) -> String {
        var encoded = ""
        for scalar in text.unicodeScalars {
            let mustEscape = "/?#&=+%".unicodeScalars.contains(scalar) || scalar.value < 0x21 || scalar.value == 0x7F
            if scalar == " ", query, Bool.random(using: &random) {
                encoded += "+"
            } else if mustEscape || Int.random(in: 0..<4, using: &random) == 0 {
                for byte in String(scalar).utf8 {
                    let hex = String(byte, radix: 16, uppercase: Bool.random(using: &random))
                    encoded += "%" + (hex.count == 1 ? "0" : "") + hex
                }
            } else {
                encoded.unicodeScalars.append(scalar)
            }
        }
        return encoded
    }
}
