import RelayCore

/// A push's `msg_id`: a positive 64-bit integer, written as a JSON string on the REST API
/// (JavaScript loses precision past 2^53) and accepted as a string or a number.
public struct MessageID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: Int64

    /// - Returns: nil unless `rawValue` is positive.
    public init?(rawValue: Int64) {
        guard rawValue > 0 else { return nil }
        self.rawValue = rawValue
    }

    /// Parses decimal text, e.g. a path segment of `DELETE /v3/push/{msg_id}`.
    public init?(_ text: some StringProtocol) {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let value = Int64(text)
        else { return nil }
        self.init(rawValue: value)
    }

    /// The decimal text, as the REST API writes it.
    public var description: String { String(rawValue) }

    public static func < (lhs: MessageID, rhs: MessageID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Reads a msg_id given as a JSON string or number.
    ///
    /// - Throws: 1003 naming `field` for anything but a positive 64-bit integer.
    public static func parse(_ value: JSONValue, field: String) throws(JPushError) -> MessageID {
        let id: MessageID? = switch value {
        case .number(let number): number.int64.flatMap(MessageID.init(rawValue:))
        case .string(let text): MessageID(text)
        default: nil
        }
        guard let id else {
            throw JPushError.illegalValue("\(field) must be a msg_id (a positive 64-bit integer, as a string or a number), got \(value.shortText)")
        }
        return id
    }
}

/// Makes msg_ids that are unique and roughly time-ordered across processes, without asking
/// the database: 1 zero bit, 41 bits of milliseconds since 2024-01-01 (good until 2093),
/// 10 bits of a node number picked at random per generator, 12 bits of sequence.
///
/// Within one generator ids strictly increase: a clock that steps back is ignored, and a
/// millisecond that runs out of sequence borrows the next one. Two generators collide only
/// if they drew the same node (1 in 1024) and issue the same sequence in the same
/// millisecond; the messages table's primary key is the backstop (on a conflict, draw
/// again). Not thread-safe by itself: keep one behind a `Mutex`.
public struct MessageIDGenerator: Sendable {
    /// 2024-01-01T00:00:00Z in Unix milliseconds.
    public static let epochMilliseconds: Int64 = 1_704_067_200_000
    static let nodeBits = 10
    static let sequenceBits = 12

    public let node: Int64
    private var lastMillisecond: Int64 = 0
    private var sequence: Int64 = 0

    /// - Parameters:
    ///   - node: 0..<1024; the low 10 bits are used.
    public init(node: Int) {
        self.node = Int64(node) & ((1 << Self.nodeBits) - 1)
    }

    /// A generator with a random node.
    public init() {
        self.init(node: Int.random(in: 0..<(1 << Self.nodeBits)))
    }

    /// The next id.
    ///
    /// - Parameters:
    ///   - nowMilliseconds: Unix time in milliseconds (injected so tests control it).
    public mutating func next(nowMilliseconds: Int64) -> MessageID {
        // At least 1, so no id is 0 even for a clock before the epoch.
        let now = max(nowMilliseconds - Self.epochMilliseconds, 1)
        if now > lastMillisecond {
            lastMillisecond = now
            sequence = 0
        } else {
            sequence += 1
            if sequence >> Self.sequenceBits != 0 {
                lastMillisecond += 1
                sequence = 0
            }
        }
        let milliseconds = lastMillisecond & ((1 << 41) - 1)
        let raw = milliseconds << (Self.nodeBits + Self.sequenceBits) | node << Self.sequenceBits | sequence
        return MessageID(rawValue: raw)!
    }

    /// When an id made by this scheme was issued, in Unix milliseconds.
    public static func milliseconds(of id: MessageID) -> Int64 {
        (id.rawValue >> (nodeBits + sequenceBits)) + epochMilliseconds
    }
}
