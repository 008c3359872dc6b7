import Foundation
import HTTPServer
import RelayCore
import Synchronization

/// How many `/v3` requests an app and failed authentications a client address may make.
public struct RateLimitSettings: Sendable, Equatable {
    /// Requests per minute per app key for apps without a limit of their own.
    public var defaultPerMinute: Int
    /// Failed authentications per minute per client address; past it the address is answered
    /// 429 before its credentials are even checked.
    public var authFailuresPerMinute: Int

    public init(defaultPerMinute: Int = RelayConfiguration().rateLimitPerMinute,
                authFailuresPerMinute: Int = RelayConfiguration().authFailuresPerMinute) {
        self.defaultPerMinute = defaultPerMinute
        self.authFailuresPerMinute = authFailuresPerMinute
    }
}

/// The node's rate-limit counters (in memory, per node) behind one lock; the clock is injected.
final class RateLimiter: Sendable {
    private let settings: RateLimitSettings
    private let clock: @Sendable () -> Date
    private let requests = Mutex(FixedWindowCounter(capacity: 100_000))
    private let authFailures = Mutex(FixedWindowCounter(capacity: 100_000))

    init(settings: RateLimitSettings, clock: @escaping @Sendable () -> Date) {
        self.settings = settings
        self.clock = clock
    }

    private var now: Int64 { Int64(clock().timeIntervalSince1970.rounded(.down)) }

    /// Counts one request of an app against its limit (its own, else the default).
    func takeRequest(appKey: String, limit: Int?) -> FixedWindowCounter.Decision {
        let limit = limit ?? settings.defaultPerMinute
        let now = now
        return requests.withLock { $0.take(appKey, limit: limit, now: now) }
    }

    /// Whether `address` may still try to authenticate this minute.
    func mayAuthenticate(address: String) -> Bool {
        let now = now
        let limit = settings.authFailuresPerMinute
        return authFailures.withLock { $0.check(Self.host(address), limit: limit, now: now).allowed }
    }

    func recordAuthenticationFailure(address: String) {
        let now = now
        let limit = settings.authFailuresPerMinute
        _ = authFailures.withLock { $0.take(Self.host(address), limit: limit, now: now) }
    }

    /// "host:port" → host: every connection of one client shares its counter.
    static func host(_ address: String) -> String {
        guard let colon = address.lastIndex(of: ":") else { return address }
        return String(address[..<colon])
    }

    static func tooManyRequests() -> JPushError {
        JPushError(status: 429, code: 2002, message: "API call frequency exceeded, see X-Rate-Limit-Reset")
    }

    static func tooManyFailures() -> JPushError {
        JPushError(status: 429, code: 2002, message: "too many failed authentications from this address, try again in a minute")
    }
}

extension HTTPResponse {
    /// The `X-Rate-Limit-*` headers JPush clients read.
    mutating func addRateLimitHeaders(_ decision: FixedWindowCounter.Decision) {
        headers.replaceOrAdd(name: "X-Rate-Limit-Limit", value: String(decision.limit))
        headers.replaceOrAdd(name: "X-Rate-Limit-Quota", value: String(decision.limit))
        headers.replaceOrAdd(name: "X-Rate-Limit-Remaining", value: String(decision.remaining))
        headers.replaceOrAdd(name: "X-Rate-Limit-Reset", value: String(decision.resetSeconds))
    }
}
