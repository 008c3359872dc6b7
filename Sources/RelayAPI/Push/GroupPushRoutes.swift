import Foundation
import HTTPServer
import PushCore
import RelayCore
import RelayCrypto

/// `POST /admin/v1/groups` makes a group of apps; `POST /v3/grouppush` (Basic
/// `group-<group_key>:<group_secret>`) sends one push to every app of the group.
struct GroupPushRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let groups = GroupRepository(pool: context.dependencies.pool)
        let slowWork = context.slowWork
        router.add("POST", "/admin/v1/groups", context.adminHandler { request, _ in
            let body = try JSONObjectReader(request.body)
            try body.rejectUnknownKeys(allowed: ["name", "app_keys"])
            let name = try body.string("name").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty, name.utf8.count <= 255 else { throw JPushError.illegalValue("name must be 1 to 255 bytes of text") }
            var appKeys: [String] = []
            if case .array(let items)? = body.fields["app_keys"] {
                for item in items {
                    guard case .string(let key) = item else { throw JPushError.illegalValue("app_keys must be a list of app keys") }
                    if !appKeys.contains(key) { appKeys.append(key) }
                }
            }
            guard !appKeys.isEmpty, appKeys.count <= 100, appKeys.allSatisfy(AppKey.isWellFormed) else {
                throw JPushError.illegalValue("app_keys must list 1 to 100 app keys")
            }
            let secret = SecureRandom.hex(12)
            let hash = await slowWork.run { SecretHasher.hash(secret) }
            let groupKey = AppKey.generate()
            try await groups.create(groupKey: groupKey, name: name, secretHash: hash, appKeys: appKeys)
            return jsonResponse(201, ["group_key": groupKey, "group_secret": secret, "name": name, "app_keys": appKeys.sorted()])
        })

        let limiter = context.rateLimiter
        let gate = context.authenticationGate
        router.add("POST", "/v3/grouppush", handler(context.logger) { request, _ in
            let credentials = BasicCredentials(authorization: request.headers["authorization"])
            let groupKey = credentials.flatMap { $0.user.hasPrefix("group-") ? String($0.user.dropFirst("group-".count)) : nil }
                .flatMap { AppKey.isWellFormed($0) ? $0 : nil }
            let attempt = gate.attempt(request, as: .app(groupKey.map { "group-" + $0 } ?? ""))
            if let refused = gate.secretRefusal(attempt, recentlyVerified: { false }) { return .tooManyFailures(refused) }
            let failure = JPushError.authenticationFailed("authentication failed: Basic group-<group_key>:<group_secret> required")
            func refuse() -> JPushError {
                gate.secretFailed(attempt)
                return failure
            }
            guard let credentials, let groupKey, !credentials.password.isEmpty else { throw refuse() }
            let password = credentials.password
            guard let group = try await groups.find(groupKey: groupKey) else {
                // The same slow hash as a wrong secret: the answer's time does not tell which group keys exist.
                _ = await slowWork.run { SecretHasher.verify(password, against: AppAuthenticator.unknownKeyHash) }
                throw refuse()
            }
            guard await slowWork.run({ SecretHasher.verify(password, against: group.secretHash) }) else { throw refuse() }
            // A group key has its own counter at the default limit, beside its apps' counters.
            let decision = limiter.takeRequest(appKey: credentials.user, limit: nil)
            var response = decision.allowed
                ? try await self.groupPush(request, apps: group.apps)
                : .error(RateLimiter.tooManyRequests())
            response.addRateLimitHeaders(decision)
            return response
        })
    }

    /// Accepts one push for every app of the group; an app's refusal is its entry's error.
    private func groupPush(_ request: HTTPRequest, apps: [(id: Int64, appKey: String)]) async throws -> HTTPResponse {
        let messages = context.messages
        let push = try PushRequest.parse(request.body)
        var reply: [String: Any] = ["group_msgid": messages.nextMessageID().description]
        for app in apps {
            do {
                let accepted = try await messages.accept(appID: app.id, request: push, body: request.body)
                context.countAccepted(accepted, appKey: app.appKey)
                context.logIgnored(push, accepted: accepted, appKey: app.appKey)
                var answer: [String: Any] = ["sendno": String(accepted.sendno), "msg_id": accepted.msgID.description]
                if !push.ignored.isEmpty { answer["ignored"] = push.ignored }
                reply[app.appKey] = answer
            } catch let error as JPushError {
                reply[app.appKey] = PushRoutes.errorObject(error)
            }
        }
        return jsonResponse(200, reply)
    }
}
