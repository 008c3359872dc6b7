import Foundation
import HTTPServer
import RelayCore
import RelayStore

/// `/client/v1`: what an app may call from the phone itself. A client key registers a device
/// (answering the device's own secret, once); the device secret then changes that one
/// device's token or environment, or unregisters it. Nothing here pushes, reads reports or
/// shows another device. Errors are the device family's (7xxx).
struct ClientDeviceRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let keys = ClientKeyRepository(pool: context.dependencies.pool)
        let devices = DeviceRepository(pool: context.dependencies.pool)
        let registrar = context.registrar
        let authenticator = ClientAuthenticator(keys: keys, gate: context.authenticationGate)
        let counter = context.requestCounter
        let limits = context.dependencies.rateLimits

        router.add("POST", "/client/v1/devices", context.clientHandler { request, _ in
            let (key, credential, attempt) = try await authenticator.clientKey(request)
            // Per key and per client address, across every node.
            for (subject, limit) in [("client-key \(key.keyID)", limits.clientRegistrationsPerMinutePerKey),
                                     ("client-address \(attempt.address)", limits.clientRegistrationsPerMinutePerAddress)] {
                let decision = try await counter.take(subject, limit: limit)
                guard decision.allowed else {
                    var response = HTTPResponse.error(RateLimiter.tooManyRequests())
                    response.addRateLimitHeaders(decision)
                    return response
                }
            }
            let body = try JSONObjectReader(request.body)
            try ClientDeviceChange.refuseLabels(body)
            try body.rejectUnknownKeys(allowed: ["platform", "token", "environment"])
            let registration = try DeviceRegistration(body)
            let rid = try await registrar.register(appID: credential.appID, registration)
            let secret = IssuedSecret.issue(bytes: 16)
            try await keys.storeDeviceSecret(appID: credential.appID, rid: rid, clientKey: credential.rowID, secretHash: secret.hash)
            return try jsonResponse(200, encoding: ClientKeyShapes.Registered(registrationID: rid, deviceSecret: secret.secret))
        })

        router.add("PATCH", "/client/v1/devices/{registration_id}", context.clientHandler { request, parameters in
            let rid = parameters["registration_id"] ?? ""
            let device = try await authenticator.device(request, rid: rid)
            let body = try JSONObjectReader(request.body)
            // The device's VoIP (or other kind of) token, beside its notification token
            // (docs/api.md, "VoIP and other token kinds").
            if let kind = try PushTokenRegistration.kind(in: body) {
                try body.rejectUnknownKeys(allowed: ["token", "token_type"])
                let token = try DeviceToken(parsing: try body.string("token"), platform: device.platform)
                try await devices.register(appID: device.appID, PushTokenRegistration(kind: kind, registrationID: rid, token: token))
                return emptySuccess
            }
            let change = try ClientDeviceChange(body, platform: device.platform, maySetLabels: device.maySetLabels)
            if change.changesRegistration { try await keys.change(device, change) }
            if let labels = change.labels {
                guard try await devices.update(appID: device.appID, rid: rid, labels) else { throw DeviceRepository.unknownRegistrationID(rid) }
            }
            return emptySuccess
        })

        router.add("DELETE", "/client/v1/devices/{registration_id}", context.clientHandler { request, parameters in
            let device = try await authenticator.device(request, rid: parameters["registration_id"] ?? "")
            try await keys.unregister(device)
            return emptySuccess
        })
    }
}

extension RouteContext {
    /// A `/client/v1` route: the body checks its own credentials (`ClientAuthenticator`); its
    /// errors are answered in the device family's codes, a client past its failures 429 with
    /// `Retry-After`.
    func clientHandler(_ body: @escaping @Sendable (HTTPRequest, RouteParameters) async throws -> HTTPResponse) -> Router.Handler {
        let logger = logger
        return { request, parameters in
            do {
                return try await body(request, parameters)
            } catch ClientAuthenticator.Refusal.tooManyFailures(let decision) {
                return .tooManyFailures(decision)
            } catch ClientAuthenticator.Refusal.refused(let error) {
                return .error(error)
            } catch {
                return .error(DeviceFamily.translate(error, logger: logger.with(["request_id": request.requestID])))
            }
        }
    }
}
