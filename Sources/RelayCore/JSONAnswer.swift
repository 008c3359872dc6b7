import Foundation

/// How every `Encodable` answer becomes JSON (the API's, ctl's, the simulator's control
/// port): one encoder setting, so the same answer always gives the same bytes. Keys are
/// sorted by their UTF-8 bytes, as `CanonicalJSON` sorts them; integers stay integers; a
/// nil written with `encode(_:forKey:)` is `null`, one written with `encodeIfPresent` (or
/// left to a synthesized conformance) is absent.
public enum JSONAnswer {
    public static func bytes(_ answer: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(answer))
    }
}

/// A key spelled where it is written: for answers whose keys are data (registration ids,
/// cids, reasons) or that a custom `encode(to:)` writes field by field.
public struct AnswerKey: CodingKey, ExpressibleByStringLiteral, Sendable {
    public var stringValue: String
    public var intValue: Int? { nil }

    public init(_ string: String) { stringValue = string }
    public init(stringLiteral value: String) { stringValue = value }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}

extension KeyedEncodingContainer where K == AnswerKey {
    /// Writes each key as `null`: the figures an answer names but this relay cannot know.
    public mutating func encodeNulls(_ keys: [String]) throws {
        for key in keys { try encodeNil(forKey: AnswerKey(key)) }
    }
}

/// A free-form value (tags read back from the store, JPush `extras`) inside an answer.
/// Integers are written as integers, other numbers as the nearest Double (`CanonicalJSON`
/// keeps every literal exactly, for bodies passed on as the client wrote them).
extension JSONValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let number):
            var container = encoder.singleValueContainer()
            if let integer = number.int64 { try container.encode(integer) } else { try container.encode(number.double) }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .object(let fields):
            var container = encoder.container(keyedBy: AnswerKey.self)
            for (key, value) in fields { try container.encode(value, forKey: AnswerKey(key)) }
        }
    }
}
