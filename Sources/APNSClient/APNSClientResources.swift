import Synchronization

/// What the APNs clients of one process share, so that an app costs little more than its
/// connections while it has work: one provider token per (team, key, private key) however
/// many apps use that key (APNs accepts a team's token for every app of the team), one TLS
/// context per trusted-CA file for token auth (a reconnect resumes the session of any
/// earlier connection to the same server), and the bound on connections to APNs with its
/// fair share (`ConnectionAllowance`).
///
/// A client made without one gets its own, without a bound.
public final class APNSClientResources: Sendable {
    private struct TokenKey: Hashable {
        var teamID: String
        var keyID: String
        /// Part of the key: an app whose upload names the same ids with another key must not
        /// sign with (or be refused for) the other app's.
        var keyPEM: String
    }

    /// Held weakly: a key no client uses any more is freed with its last client.
    private struct WeakTokens {
        weak var manager: ProviderTokenManager?
    }

    let allowance: ConnectionAllowance?
    private let tokens = Mutex<(managers: [TokenKey: WeakTokens], sweepAt: Int)>(([:], 64))
    private let tlsContexts = Mutex<[String: TLSContext]>([:])

    /// - Parameter maxConnections: the most connections to APNs the clients sharing this
    ///   hold at once (each client keeps its own `maxConnections` too); nil for no bound.
    public init(maxConnections: Int? = nil) {
        allowance = maxConnections.map { ConnectionAllowance(limit: max(1, $0)) }
    }

    /// Connections held now (open or opening) under the bound; nil without one.
    public var connectionsHeld: Int? { allowance?.total }

    /// The token managers in use now (one per team, key and private key).
    var tokenManagerCount: Int { tokens.withLock { $0.managers.values.count(where: { $0.manager != nil }) } }

    /// The token manager of (team, key): the one in use, or a new one.
    func tokenManager(keyPEM: String, keyID: String, teamID: String, clock: any APNSClock) throws -> ProviderTokenManager {
        let key = TokenKey(teamID: teamID, keyID: keyID, keyPEM: keyPEM)
        if let shared = tokens.withLock({ $0.managers[key]?.manager }) { return shared }
        // Made outside the lock (it loads the key and signs a first token); should another
        // client of the same key have made one meanwhile, that one is used.
        let made = try ProviderTokenManager(keyPEM: keyPEM, keyID: keyID, teamID: teamID, clock: clock)
        return tokens.withLock { tokens in
            if let shared = tokens.managers[key]?.manager { return shared }
            tokens.managers[key] = WeakTokens(manager: made)
            if tokens.managers.count >= tokens.sweepAt {
                tokens.managers = tokens.managers.filter { $0.value.manager != nil }
                tokens.sweepAt = max(64, 2 * tokens.managers.count)
            }
            return made
        }
    }

    /// The TLS context of token-auth clients trusting `caFile` besides the system's CAs.
    func tokenTLSContext(caFile: String?) throws -> TLSContext {
        try tlsContexts.withLock { contexts in
            if let shared = contexts[caFile ?? ""] { return shared }
            let made = try TLSContext(caFile: caFile, clientCertificatePEM: nil, clientKeyPEM: nil)
            contexts[caFile ?? ""] = made
            return made
        }
    }
}
