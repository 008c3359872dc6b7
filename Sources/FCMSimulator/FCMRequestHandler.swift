import APNSClient
import APNSSimulator
import Foundation

/// Everything the simulated Google endpoints decide about one complete request: the token
/// endpoint (`POST …/token`, the JWT-bearer grant) and `POST /v1/projects/{p}/messages:send`
/// (the access token, the message, then the scripted prefixes and rates, read in FCM's terms).
/// One per listener: the behaviour's RNG is mutable.
struct FCMRequestHandler: SimulatedService {
    let assertions: AssertionCheck
    let registry: AccessTokenRegistry
    let accessTokenLifetime: Int
    let retryAfterSeconds: Int?
    var behaviour: ScriptedBehaviour
    private var accepted = 0
    private let listenerIndex: Int

    init(assertions: AssertionCheck, registry: AccessTokenRegistry, configuration: FCMSimulatorConfiguration, index: Int) {
        self.assertions = assertions
        self.registry = registry
        accessTokenLifetime = configuration.accessTokenLifetime
        retryAfterSeconds = configuration.retryAfterSeconds
        let server = configuration.server
        behaviour = ScriptedBehaviour(
            unregisteredPrefix: server.unregisteredPrefix, badTokenPrefix: server.badTokenPrefix,
            rate429: server.rate429, rate500: server.rate500, rate503: server.rate503, seed: server.seed &+ UInt64(index))
        listenerIndex = index
    }

    mutating func setRates(_ rates: FailureRates) {
        behaviour.rate429 = rates.rate429
        behaviour.rate500 = rates.rate500
        behaviour.rate503 = rates.rate503
    }

    mutating func answer(_ request: APNSRequest, nowMilliseconds: Int64, tokenCache _: inout ProviderTokenCache) -> SimulatorDecision {
        guard request.method == "POST" else { return Self.refused(405, "METHOD_NOT_ALLOWED", "use POST") }
        let path = request.path.prefix { $0 != "?" }
        if path.hasSuffix("/token") { return tokenEndpoint(request, nowMilliseconds: nowMilliseconds) }
        let parts = path.split(separator: "/")
        guard parts.count == 4, parts[0] == "v1", parts[1] == "projects", parts[3] == "messages:send" else {
            return Self.refused(404, "NOT_FOUND", "no such method: \(path)")
        }
        return send(request, project: String(parts[2]), nowMilliseconds: nowMilliseconds)
    }

    private mutating func send(_ request: APNSRequest, project: String, nowMilliseconds: Int64) -> SimulatorDecision {
        let bearer = request.authorization.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        guard let bearer, let tokenProject = registry.project(of: bearer, nowMilliseconds: nowMilliseconds) else {
            return Self.refused(401, "UNAUTHENTICATED",
                                "Request had invalid authentication credentials. Expected OAuth 2 access token.")
        }
        guard tokenProject == project else {
            return Self.refused(403, "PERMISSION_DENIED", "Permission 'cloudmessaging.messages.create' denied on resource")
        }
        guard request.bodyLength <= APNSRequest.bodyRetentionLimit - 1 else {
            return Self.refused(400, "INVALID_ARGUMENT", "Request payload size exceeds the limit", field: "message")
        }
        let token: String
        switch FCMMessageCheck.check(request.body) {
        case let .failure(refusal): return Self.refused(400, "INVALID_ARGUMENT", refusal.message, field: refusal.field)
        case let .success(value): token = value
        }
        if let scripted = behaviour.response(forToken: token, nowMilliseconds: nowMilliseconds)?.reason {
            return scriptedAnswer(scripted)
        }
        accepted += 1
        // `{"name":…}` written directly: it answers every message, and JSONEncoder took a seventh
        // of the simulator's CPU (perf, bench-fanout). Nothing in it needs escaping: the project is
        // the access token's, a service account's project id (letters, digits, `-.:`).
        let body = #"{"name":"projects/\#(project)/messages/0:\#(nowMilliseconds)\#(listenerIndex)\#(accepted)"}"#
        return SimulatorDecision(response: SimulatorResponse(status: 200, body: Array(body.utf8)), acceptedToken: token)
    }

    /// The APNs simulator's scripted answers in FCM's words.
    private func scriptedAnswer(_ reason: APNSReason) -> SimulatorDecision {
        switch reason {
        case .badDeviceToken:
            return Self.refused(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
                                errorCode: "INVALID_ARGUMENT")
        case .unregistered:
            return Self.refused(404, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED")
        case .tooManyRequests:
            return Self.refused(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Send messages'",
                                errorCode: "QUOTA_EXCEEDED", retryAfter: retryAfterSeconds)
        case .serviceUnavailable:
            return Self.refused(503, "UNAVAILABLE", "The service is currently unavailable.", errorCode: "UNAVAILABLE",
                                retryAfter: retryAfterSeconds)
        default:
            return Self.refused(500, "INTERNAL", "Internal error encountered.", errorCode: "INTERNAL")
        }
    }

    private func tokenEndpoint(_ request: APNSRequest, nowMilliseconds: Int64) -> SimulatorDecision {
        if registry.isDown {
            return SimulatorDecision(response: SimulatorResponse(status: 503, body: FCMErrorBody.oauth("temporarily_unavailable", "down (simulated)")),
                                     rejectedReason: "TOKEN_ENDPOINT_DOWN")
        }
        let form = Self.form(request.body)
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"] else {
            return SimulatorDecision(response: SimulatorResponse(status: 400, body: FCMErrorBody.oauth("unsupported_grant_type", "Invalid grant_type")),
                                     rejectedReason: "unsupported_grant_type")
        }
        switch assertions.check(assertion: assertion, nowSeconds: nowMilliseconds / 1000) {
        case let .failure(refusal):
            return SimulatorDecision(response: SimulatorResponse(status: 400, body: FCMErrorBody.oauth(refusal.error, refusal.description)),
                                     rejectedReason: refusal.error)
        case let .success(project):
            let token = registry.issue(projectID: project, lifetime: accessTokenLifetime, nowMilliseconds: nowMilliseconds)
            let body = FCMErrorBody.json(TokenGrant(accessToken: token, expiresIn: accessTokenLifetime))
            return SimulatorDecision(response: SimulatorResponse(status: 200, body: body))
        }
    }

    private static func refused(_ code: Int, _ status: String, _ message: String, errorCode: String? = nil, field: String? = nil,
                                retryAfter: Int? = nil) -> SimulatorDecision {
        SimulatorDecision(
            response: SimulatorResponse(status: code, body: FCMErrorBody.make(code: code, status: status, message: message,
                                                                             errorCode: errorCode, field: field),
                                        retryAfter: retryAfter),
            rejectedReason: errorCode ?? status)
    }

    /// The token endpoint's answer to a good assertion (RFC 6749 §5.1).
    private struct TokenGrant: Encodable {
        var accessToken: String
        var expiresIn: Int
        var tokenType = "Bearer"

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
            case tokenType = "token_type"
        }
    }

    /// `application/x-www-form-urlencoded` pairs.
    static func form(_ body: [UInt8]) -> [String: String] {
        var pairs: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            func decode(_ text: Substring) -> String {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            pairs[decode(parts[0])] = decode(parts[1])
        }
        return pairs
    }
}
