import Foundation
import HTTPServer
import RelayCore
import RelayCrypto
import RelayStore

/// Checks `Basic group-<group_key>:<group_secret>` against the group's stored hash, read
/// on every request, so a rotated secret or a deleted group stops working at once.
struct GroupAuthenticator: Sendable {
    let groups: GroupRepository
    let slowWork: SlowWork

    /// The well-formed group key the credentials name, if any.
    static func groupKey(_ credentials: BasicCredentials?) -> String? {
        guard let user = credentials?.user, user.hasPrefix("group-") else { return nil }
        let key = String(user.dropFirst("group-".count))
        return AppKey.isWellFormed(key) ? key : nil
    }

    /// - Parameter failure: the 401 to answer, in the calling route family's code.
    func authenticate(_ credentials: BasicCredentials?, failure: JPushError) async throws -> AuthenticatedGroup {
        guard let credentials, let groupKey = Self.groupKey(credentials), !credentials.password.isEmpty else { throw failure }
        let password = credentials.password
        guard let (secretHash, group) = try await groups.find(groupKey: groupKey) else {
            // The same hash as a wrong secret: the answer's time does not tell which group keys exist.
            _ = SecretHasher.verify(password, against: AppAuthenticator.unknownKeyHash)
            throw failure
        }
        let verified = SecretHasher.isSlow(secretHash)
            ? await slowWork.run { SecretHasher.verify(password, against: secretHash) }
            : SecretHasher.verify(password, against: secretHash)
        guard verified else { throw failure }
        return group
    }
}

extension RouteContext {
    /// A route for a group of apps, Basic `group-<group_key>:<group_secret>`; `failure` is the
    /// 401 in the route family's code.
    ///
    /// Failed authentications count against (client address, `group-<group_key>`) like an
    /// app's (429/2002 with `Retry-After` past the limit). A group has its own request counter
    /// at the default limit, beside its apps' counters, under `group-<group_key>`.
    func groupHandler(
        failure: JPushError,
        _ body: @escaping @Sendable (HTTPRequest, RouteParameters, AuthenticatedGroup) async throws -> HTTPResponse
    ) -> Router.Handler {
        let authenticator = GroupAuthenticator(groups: GroupRepository(pool: dependencies.pool), slowWork: slowWork)
        let counter = requestCounter
        let defaultLimit = dependencies.rateLimits.defaultPerMinute
        let gate = authenticationGate
        return handler(logger) { request, parameters in
            let credentials = BasicCredentials(authorization: request.headers["authorization"])
            let attempt = gate.attempt(request, as: .app(GroupAuthenticator.groupKey(credentials).map { "group-" + $0 } ?? ""))
            if let refused = gate.secretRefusal(attempt, recentlyVerified: { false }) { return .tooManyFailures(refused) }
            let group: AuthenticatedGroup
            do {
                group = try await authenticator.authenticate(credentials, failure: failure)
            } catch let refused as JPushError where refused == failure {
                gate.secretFailed(attempt)
                throw refused
            }
            let decision = try await counter.take("group-" + group.groupKey, limit: defaultLimit)
            var response = decision.allowed ? try await body(request, parameters, group) : .error(RateLimiter.tooManyRequests())
            response.addRateLimitHeaders(decision)
            return response
        }
    }
}
