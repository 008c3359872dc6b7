import HTTPServer
import RelayCore

/// The failure limit around every credential check (app secrets, group secrets, the admin
/// token, the dashboard login, the metrics token): a client past its failures for that
/// subject this minute is answered 429 with `Retry-After` before anything is checked, and
/// each failure is counted. A wrong token also waits `tokenFailureDelay` for its answer,
/// as a token gives no other brake on guessing.
///
/// A client could try a fresh key each time, and a secret stored before the relay moved to
/// salted SHA-256 costs a slow hash to check: so an address's failed secrets over every key
/// together have a larger budget as well, past which only credentials verified recently are
/// checked.
struct AuthenticationGate: Sendable {
    let limiter: RateLimiter
    let resolver: ClientAddressResolver
    let tokenFailureDelay: Duration

    func attempt(_ request: HTTPRequest, as subject: AuthenticationAttempt.Subject) -> AuthenticationAttempt {
        AuthenticationAttempt(client: resolver.client(of: request), subject: subject)
    }

    /// Nil when the attempt may go ahead; otherwise the window that refuses it, for the
    /// 429's `Retry-After`.
    func refusal(_ attempt: AuthenticationAttempt) -> FixedWindowCounter.Decision? {
        let decision = limiter.mayAuthenticate(attempt)
        return decision.allowed ? nil : decision
    }

    /// Like `refusal`, for a secret check: also refused when the address is past its
    /// failed secrets over every key, unless `recentlyVerified` (such credentials are
    /// answered from the auth cache, so a neighbour's flood does not
    /// lock out an app already talking to the relay).
    func secretRefusal(_ attempt: AuthenticationAttempt, recentlyVerified: () -> Bool) -> FixedWindowCounter.Decision? {
        if let refused = refusal(attempt) { return refused }
        let decision = limiter.maySpendSecretCheck(attempt)
        return decision.allowed || recentlyVerified() ? nil : decision
    }

    /// Counts a failed app or group secret.
    func secretFailed(_ attempt: AuthenticationAttempt) {
        limiter.recordSecretFailure(attempt)
    }

    /// Counts a wrong token, then waits before the caller answers.
    func tokenFailed(_ attempt: AuthenticationAttempt) async {
        limiter.recordAuthenticationFailure(attempt)
        try? await Task.sleep(for: tokenFailureDelay)
    }
}
