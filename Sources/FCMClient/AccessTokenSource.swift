import APNSClient
import EventLoops
import Foundation
import RelayCore
import RelayCrypto
import Synchronization

/// The service account's OAuth2 access token for the process: signs the RS256 assertion
/// (RFC 7523 JWT-bearer grant) and exchanges it at the account's `token_uri`, over the same
/// HTTP/2 machinery as the sends. `AccessTokenLifecycle` decides when; this does the I/O.
final class AccessTokenSource: Sendable {
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    private let account: FCMServiceAccount
    private let signer: RS256Signer
    private let transport: APNSClient
    private let path: [UInt8]
    private let clock: any APNSClock
    private let logger: Logger
    private let state: Mutex<(lifecycle: AccessTokenLifecycle, waiters: [CheckedContinuation<Result<String, FCMFailure>, Never>])>

    init(account: FCMServiceAccount, configuration: FCMClientConfiguration, clock: any APNSClock, logger: Logger,
         group: EventLoopGroup, resources: APNSClientResources) throws {
        guard let url = URL(string: account.tokenURI) else { throw CredentialError("token_uri is not a URL") }
        self.account = account
        signer = try RS256Signer(pem: account.privateKeyPEM)
        var transportConfiguration = try configuration.transport(to: url)
        transportConfiguration.maxConnections = 1
        transportConfiguration.maxInFlight = 8
        transport = try APNSClient(configuration: transportConfiguration, logger: logger, clock: clock, group: group, resources: resources)
        let query = url.query.map { "?\($0)" } ?? ""
        path = Array(((url.path.isEmpty ? "/" : url.path) + query).utf8)
        self.clock = clock
        self.logger = logger
        state = Mutex((AccessTokenLifecycle(refreshMargin: configuration.tokenRefreshMargin), []))
    }

    /// The token to send with now, fetching one first when there is none.
    func token() async -> Result<String, FCMFailure> {
        await withCheckedContinuation { continuation in
            // Decided and, when waiting, enrolled under one lock: a fetch ending in between
            // cannot miss the waiter.
            let (answer, startFetch) = state.withLock { state -> (Result<String, FCMFailure>?, Bool) in
                let (decision, startFetch) = state.lifecycle.need(now: clock.now)
                switch decision {
                case let .use(token): return (.success(token), startFetch)
                case let .fail(reason, broken): return (.failure(.accessToken(reason, broken: broken)), startFetch)
                case .wait:
                    state.waiters.append(continuation)
                    return (nil, startFetch)
                }
            }
            if let answer { continuation.resume(returning: answer) }
            if startFetch { Task { await fetch() } }
        }
    }

    /// FCM answered 401 to `token`: the next `token()` fetches a new one.
    func rejected(_ token: String) {
        state.withLock { $0.lifecycle.rejected(token) }
    }

    func shutdown() async {
        await transport.shutdown()
    }

    private func fetch() async {
        let outcome = await exchange()
        let now = clock.now
        let waiters = state.withLock { state in
            switch outcome {
            case let .success((token, expiresIn)): state.lifecycle.fetched(token, expiresIn: expiresIn, now: now)
            case let .failure(.accessToken(reason, broken)): state.lifecycle.fetchFailed(reason: reason, broken: broken, now: now)
            case let .failure(failure): state.lifecycle.fetchFailed(reason: failure.description, broken: false, now: now)
            }
            defer { state.waiters = [] }
            return state.waiters
        }
        if case let .failure(failure) = outcome {
            logger.warning("FCM access token not obtained", ["token_uri": account.tokenURI, "reason": failure.description])
        }
        let result = outcome.map(\.token)
        for waiter in waiters { waiter.resume(returning: result) }
    }

    /// One assertion signed and exchanged.
    private func exchange() async -> Result<(token: String, expiresIn: TimeInterval), FCMFailure> {
        let assertion: String
        do {
            assertion = try OAuthAssertion.make(account: account, scope: Self.scope, issuedAt: clock.now, signer: signer)
        } catch {
            return .failure(.accessToken("cannot sign the assertion: \(error)", broken: true))
        }
        let body = "grant_type=" + OAuthAssertion.jwtBearerGrant.formEncoded + "&assertion=" + assertion
        let request = FCMRequest(path: path, authorization: nil, contentType: "application/x-www-form-urlencoded",
                                 body: Array(body.utf8), expiration: nil)
        guard let answer = await transport.send(messages: [request], urgent: true).first else {
            return .failure(.accessToken("no answer", broken: false))
        }
        return TokenAnswer.read(answer)
    }
}
