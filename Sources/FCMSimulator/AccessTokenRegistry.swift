import RelayCore
import Synchronization

/// The access tokens the simulated token endpoint issued, shared by every listener, and
/// whether the endpoint is down (the control endpoint's switch).
final class AccessTokenRegistry: Sendable {
    private struct Issued {
        var projectID: String
        var expiresAtMilliseconds: Int64
    }

    private let state = Mutex<(tokens: [String: Issued], random: SplitMix64, down: Bool, issuedCount: Int)>(
        ([:], SplitMix64(seed: UInt64.random(in: 0...UInt64.max)), false, 0))

    /// Issues a token for `projectID`, valid `lifetime` seconds from `now`.
    func issue(projectID: String, lifetime: Int, nowMilliseconds: Int64) -> String {
        state.withLock { state in
            let token = "ya29.sim-" + String(state.random.next(), radix: 16) + String(state.random.next(), radix: 16)
            state.tokens[token] = Issued(projectID: projectID, expiresAtMilliseconds: nowMilliseconds + Int64(lifetime) * 1000)
            state.issuedCount += 1
            return token
        }
    }

    /// The project a live token was issued for; nil for a token unknown, revoked or expired.
    func project(of token: String, nowMilliseconds: Int64) -> String? {
        state.withLock { state in
            guard let issued = state.tokens[token] else { return nil }
            guard issued.expiresAtMilliseconds > nowMilliseconds else {
                state.tokens[token] = nil
                return nil
            }
            return issued.projectID
        }
    }

    /// Forgets every token issued: the next send with one is answered 401.
    func revokeAll() {
        state.withLock { $0.tokens.removeAll() }
    }

    var isDown: Bool {
        get { state.withLock { $0.down } }
        set { state.withLock { $0.down = newValue } }
    }

    /// Tokens issued since start.
    var issuedCount: Int { state.withLock { $0.issuedCount } }
}
