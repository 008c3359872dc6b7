import Foundation

/// When the FCM client fetches an OAuth2 access token, and which one a send uses: one token per
/// service account per process, reused until `refreshMargin` before it expires (then fetched
/// again in the background while the old one still serves), dropped when FCM answers 401 to
/// it, and one fetch at a time, whoever asks. A failed fetch is not retried for
/// `failureHoldOff`: sends meanwhile fail at once rather than hammering a token endpoint that
/// is down.
///
/// Pure: the time comes with each event; the actions say what to do.
struct AccessTokenLifecycle {
    /// A token and when it stops working.
    struct Token: Equatable {
        var value: String
        var expiresAt: Date
    }

    /// What `need` answers.
    enum Decision: Equatable {
        /// Use this token now.
        case use(String)
        /// Wait for the fetch under way (`fetched` / `fetchFailed` answer every waiter).
        case wait
        /// The last fetch failed a moment ago: fail now, with its reason.
        case fail(reason: String, broken: Bool)
    }

    let refreshMargin: TimeInterval
    let failureHoldOff: TimeInterval
    private(set) var current: Token?
    private(set) var fetching = false
    private var lastFailure: (at: Date, reason: String, broken: Bool)?

    init(refreshMargin: TimeInterval = 300, failureHoldOff: TimeInterval = 1) {
        self.refreshMargin = refreshMargin
        self.failureHoldOff = failureHoldOff
    }

    /// A send needs a token.
    ///
    /// - Returns: the decision, and whether to start a fetch now.
    mutating func need(now: Date) -> (Decision, startFetch: Bool) {
        if let current, now < current.expiresAt {
            // Still good; near its end a fresh one is fetched while this one serves.
            let refresh = !fetching && now >= current.expiresAt.addingTimeInterval(-refreshMargin)
            if refresh { fetching = true }
            return (.use(current.value), refresh)
        }
        current = nil
        if fetching { return (.wait, false) }
        if let lastFailure, now.timeIntervalSince(lastFailure.at) < failureHoldOff {
            return (.fail(reason: lastFailure.reason, broken: lastFailure.broken), false)
        }
        fetching = true
        return (.wait, true)
    }

    /// The token endpoint answered with a token valid for `expiresIn` seconds.
    mutating func fetched(_ value: String, expiresIn: TimeInterval, now: Date) {
        fetching = false
        lastFailure = nil
        current = Token(value: value, expiresAt: now.addingTimeInterval(expiresIn))
    }

    /// The fetch failed; `broken` when the endpoint refused the credential itself.
    mutating func fetchFailed(reason: String, broken: Bool, now: Date) {
        fetching = false
        lastFailure = (now, reason, broken)
    }

    /// FCM answered 401 to a request sent with `value`: it is not used again (unless a
    /// newer token replaced it already, in which case nothing changes).
    mutating func rejected(_ value: String) {
        if current?.value == value { current = nil }
    }
}
