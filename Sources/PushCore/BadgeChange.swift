import RelayCore

/// What a push does to a device's badge: set it, or add to the badge PushRelay stores for
/// the device (`"+N"` / `"-N"`), the result clamped to 0...PushLimits.maxBadge.
public enum BadgeChange: Sendable, Hashable {
    case set(Int)
    /// Negative for `"-N"`.
    case add(Int)

    /// The badge to send and store back, given the device's stored badge.
    public func applied(to stored: Int) -> Int {
        switch self {
        case .set(let value): value
        case .add(let delta): min(max(stored + delta, 0), PushLimits.maxBadge)
        }
    }

    /// Reads `badge`: an integer, `"+N"`, `"-N"`, or (leniently) `"N"` meaning set.
    ///
    /// - Throws: 1003 naming `field` for any other value or a number past the limits.
    static func parse(_ value: JSONValue, field: String) throws(JPushError) -> BadgeChange {
        let limit = PushLimits.maxBadge
        if let number = value.int64 {
            guard number >= 0, number <= Int64(limit) else {
                throw JPushError.illegalValue("\(field) must be from 0 to \(limit), got \(number)")
            }
            return .set(Int(number))
        }
        switch value {
        case .string(let text):
            var digits = Substring(text)
            var sign = 0
            if let first = digits.first, first == "+" || first == "-" {
                sign = first == "+" ? 1 : -1
                digits = digits.dropFirst()
            }
            guard !digits.isEmpty, digits.count <= 7, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let number = Int(digits), number <= limit
            else {
                throw JPushError.illegalValue(
                    "\(field) must be an integer from 0 to \(limit), or \"+N\" / \"-N\" with N up to \(limit); got \(value.shortText)")
            }
            return sign == 0 ? .set(number) : .add(sign * number)
        default:
            throw JPushError.illegalValue("\(field) must be an integer or a \"+N\" / \"-N\" string, got \(value.typeName)")
        }
    }
}
