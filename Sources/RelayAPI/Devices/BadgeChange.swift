import RelayCore

/// A push's `badge`: an integer sets the stored badge, `"+N"` / `"-N"` moves it (never
/// below 0). The stored value is what APNs is sent.
public enum BadgeChange: Sendable, Equatable {
    case set(Int)
    case add(Int)

    /// Parses `notification.ios.badge`.
    ///
    /// - Throws: `JPushError.illegalValue` (1003) for anything else.
    public init(_ value: JSONValue) throws(JPushError) {
        switch value {
        case .int(let number) where (0...Int64(DeviceRegistration.maxBadge)).contains(number):
            self = .set(Int(number))
        case .string(let text) where text.hasPrefix("+") || text.hasPrefix("-"):
            guard let number = Int(text.dropFirst()), text.dropFirst().allSatisfy(\.isASCII),
                  (0...Int(DeviceRegistration.maxBadge)).contains(number) else {
                throw JPushError.illegalValue("badge must be an integer from 0 to \(DeviceRegistration.maxBadge), or \"+N\" / \"-N\"; got \"\(text)\"")
            }
            self = .add(text.hasPrefix("-") ? -number : number)
        default:
            throw JPushError.illegalValue("badge must be an integer from 0 to \(DeviceRegistration.maxBadge), or \"+N\" / \"-N\"")
        }
    }

    /// The badge a device ends up with, from its stored one.
    public func applied(to stored: Int) -> Int {
        switch self {
        case .set(let value): value
        case .add(let delta): min(Int(DeviceRegistration.maxBadge), max(0, stored + delta))
        }
    }
}
