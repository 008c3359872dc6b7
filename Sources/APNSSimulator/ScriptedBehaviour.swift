import APNSClient
import RelayCore

/// The failures a test asks the simulator to act out for requests that are otherwise
/// valid: dead tokens by prefix, and random 429/500/503 at given rates.
public struct ScriptedBehaviour: Sendable {
    public var unregisteredPrefix: String?
    public var badTokenPrefix: String?
    public var rate429: Double
    public var rate500: Double
    public var rate503: Double
    private var random: SplitMix64

    public init(
        unregisteredPrefix: String? = nil, badTokenPrefix: String? = nil,
        rate429: Double = 0, rate500: Double = 0, rate503: Double = 0, seed: UInt64 = 0
    ) {
        self.unregisteredPrefix = unregisteredPrefix.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        self.badTokenPrefix = badTokenPrefix.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        self.rate429 = rate429
        self.rate500 = rate500
        self.rate503 = rate503
        self.random = SplitMix64(seed: seed)
    }

    /// The scripted answer for a valid request to `token`, `nil` to accept it.
    ///
    /// Prefixes are compared case-insensitively, as tokens are hex. One random draw decides
    /// among the rates: below `rate429` → 429, the next `rate500` → 500, the next
    /// `rate503` → 503. No draw is made when all rates are zero.
    ///
    /// - Parameters:
    ///   - token: the device token.
    ///   - nowMilliseconds: the time a 410 reports the token dead.
    public mutating func response(forToken token: String, nowMilliseconds: Int64) -> APNSResponse? {
        if let badTokenPrefix, Self.hasPrefix(token, badTokenPrefix) { return APNSResponse(reason: .badDeviceToken) }
        if let unregisteredPrefix, Self.hasPrefix(token, unregisteredPrefix) {
            return APNSResponse(reason: .unregistered, timestamp: nowMilliseconds)
        }
        guard rate429 > 0 || rate500 > 0 || rate503 > 0 else { return nil }
        let draw = random.nextUnit()
        if draw < rate429 { return APNSResponse(reason: .tooManyRequests) }
        if draw < rate429 + rate500 { return APNSResponse(reason: .internalServerError) }
        if draw < rate429 + rate500 + rate503 { return APNSResponse(reason: .serviceUnavailable) }
        return nil
    }

    /// Whether `token` starts with `prefix` (lower case), ignoring the token's case.
    static func hasPrefix(_ token: String, _ prefix: String) -> Bool {
        token.utf8.count >= prefix.utf8.count
            && zip(token.utf8, prefix.utf8).allSatisfy { lowercase($0) == $1 }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte + 32 : byte
    }
}
