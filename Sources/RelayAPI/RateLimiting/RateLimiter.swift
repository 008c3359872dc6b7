import Foundation
import HTTPServer
import RelayCore
import Synchronization

/// How many `/v3` requests an app may make (counted across nodes by `RequestCounter`), and how
/// many failed authentications a client address may make for one app key (or the admin or
/// metrics token; counted per node by `RateLimiter`).
public struct RateLimitSettings: Sendable, Equatable {
    /// Requests per minute per app key for apps without a limit of their own.
    public var defaultPerMinute: Int
    /// Failed authentications per minute per client address and app key (or token); past it
    /// that pair is answered 429 with `Retry-After` before its credentials are even checked.
    public var authFailuresPerMinute: Int
    /// Failed app and group secrets per minute per client address over every key together
    /// (a client could try a fresh key each time); past it only credentials verified within
    /// the auth cache's time are still checked. Ten times `authFailuresPerMinute` unless set.
    public var secretFailuresPerMinutePerAddress: Int
    /// How long a wrong admin or metrics token (or dashboard login) waits for its 401: the
    /// request's task sleeps, no thread or loop is held.
    public var tokenFailureDelay: Duration
    /// Device registrations per minute through one client key, and from one client address
    /// through any client key (counted like `/v3` requests, by `RequestCounter`).
    public var clientRegistrationsPerMinutePerKey: Int
    public var clientRegistrationsPerMinutePerAddress: Int

    public init(defaultPerMinute: Int = RelayConfiguration().rateLimitPerMinute,
                authFailuresPerMinute: Int = RelayConfiguration().authFailuresPerMinute,
                secretFailuresPerMinutePerAddress: Int? = nil,
                tokenFailureDelay: Duration = .milliseconds(250),
                clientRegistrationsPerMinutePerKey: Int = RelayConfiguration().clientRegistrationsPerMinutePerKey,
                clientRegistrationsPerMinutePerAddress: Int = RelayConfiguration().clientRegistrationsPerMinutePerAddress) {
        self.defaultPerMinute = defaultPerMinute
        self.authFailuresPerMinute = authFailuresPerMinute
        self.secretFailuresPerMinutePerAddress = secretFailuresPerMinutePerAddress ?? authFailuresPerMinute * 10
        self.tokenFailureDelay = tokenFailureDelay
        self.clientRegistrationsPerMinutePerKey = clientRegistrationsPerMinutePerKey
        self.clientRegistrationsPerMinutePerAddress = clientRegistrationsPerMinutePerAddress
    }
}

/// What failed authentications are counted by: the client's address and what it tried to
/// authenticate as, so a client behind the same address (a NAT, a proxy) that gets another
/// app's secret wrong never locks this app out.
struct AuthenticationAttempt: Sendable, Hashable {
    enum Subject: Sendable, Hashable {
        /// The app key (or `group-<group key>`) presented; "" for credentials too malformed to name one.
        case app(String)
        case admin
        case metrics
        /// A client key, by its key id; a device secret, by its registration id.
        case clientKey(String)
        case device(String)
    }

    var client: IPAddress?
    var subject: Subject

    /// The client's counter key over every subject. An IPv6 client counts by its /64: one
    /// host usually holds a whole /64, and would otherwise get a fresh counter per address.
    var address: String {
        client.map { $0.isIPv4 ? $0.description : $0.masked(to: 64).description + "/64" } ?? ""
    }

    /// The counter's key: the address and the subject.
    var key: String {
        switch subject {
        case .app(let key): return "\(address) app \(key)"
        case .admin: return "\(address) admin"
        case .metrics: return "\(address) metrics"
        case .clientKey(let id): return "\(address) client key \(id)"
        case .device(let rid): return "\(address) device \(rid)"
        }
    }
}

/// The node's failed-authentication counters (in memory, per node: they only slow a guesser
/// down) behind one lock; the clock is injected.
final class RateLimiter: Sendable {
    private let settings: RateLimitSettings
    private let clock: @Sendable () -> Date
    private let authFailures = Mutex(FixedWindowCounter(capacity: 100_000))
    private let secretFailuresByAddress = Mutex(FixedWindowCounter(capacity: 100_000))

    init(settings: RateLimitSettings, clock: @escaping @Sendable () -> Date) {
        self.settings = settings
        self.clock = clock
    }

    private var now: Int64 { Int64(clock().timeIntervalSince1970.rounded(.down)) }

    /// Whether the attempt's client may still try this minute, and when its window ends.
    func mayAuthenticate(_ attempt: AuthenticationAttempt) -> FixedWindowCounter.Decision {
        let now = now
        let limit = settings.authFailuresPerMinute
        return authFailures.withLock { $0.check(attempt.key, limit: limit, now: now) }
    }

    func recordAuthenticationFailure(_ attempt: AuthenticationAttempt) {
        let now = now
        let limit = settings.authFailuresPerMinute
        _ = authFailures.withLock { $0.take(attempt.key, limit: limit, now: now) }
    }

    /// Whether the attempt's client may still have a secret checked this minute, over every key.
    func maySpendSecretCheck(_ attempt: AuthenticationAttempt) -> FixedWindowCounter.Decision {
        let now = now
        let limit = settings.secretFailuresPerMinutePerAddress
        return secretFailuresByAddress.withLock { $0.check(attempt.address, limit: limit, now: now) }
    }

    /// Counts a failed app or group secret against both its pair and its address.
    func recordSecretFailure(_ attempt: AuthenticationAttempt) {
        recordAuthenticationFailure(attempt)
        let now = now
        let limit = settings.secretFailuresPerMinutePerAddress
        _ = secretFailuresByAddress.withLock { $0.take(attempt.address, limit: limit, now: now) }
    }

    static func tooManyRequests() -> JPushError {
        JPushError(status: 429, code: 2002, message: "API call frequency exceeded, see X-Rate-Limit-Reset")
    }

    static func tooManyFailures(_ decision: FixedWindowCounter.Decision) -> JPushError {
        JPushError(status: 429, code: 2002,
                   message: "too many failed authentications from this address, try again in \(decision.resetSeconds) s (Retry-After)")
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

    /// The 429 of a client past its failed authentications, with `Retry-After` in seconds.
    static func tooManyFailures(_ decision: FixedWindowCounter.Decision) -> HTTPResponse {
        var response = HTTPResponse.error(RateLimiter.tooManyFailures(decision))
        response.headers.replaceOrAdd(name: "Retry-After", value: String(decision.resetSeconds))
        return response
    }
}
