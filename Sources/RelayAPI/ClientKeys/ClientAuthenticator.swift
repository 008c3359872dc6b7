import HTTPServer
import RelayCore
import RelayCrypto
import RelayStore

/// Checks the client API's credentials: `Authorization: Bearer <client key>` for a
/// registration, `Bearer <device secret>` for a device's own calls. Each request reads the
/// key's (or device's) row, so a revoked key or an unregistered device is refused at once
/// on every node; failures count against the client address (`AuthenticationGate`).
struct ClientAuthenticator: Sendable {
    let keys: ClientKeyRepository
    let gate: AuthenticationGate

    static let keyRequired = JPushError(status: 401, code: 7004, message: "the client API needs Authorization: Bearer <client key>")
    static let keyRefused = JPushError(status: 401, code: 7004, message: "client key is unknown or revoked")
    static let secretRequired = JPushError(status: 401, code: 7004, message: "a device's calls need Authorization: Bearer <device secret>")

    static func notThisDevice(_ rid: String) -> JPushError {
        JPushError(status: 403, code: 7004, message: "this device secret does not act for registration_id \(InputEcho.quoted(rid))")
    }

    /// What a request is refused with before or while its credentials are checked.
    enum Refusal: Error {
        case tooManyFailures(FixedWindowCounter.Decision)
        case refused(JPushError)
    }

    /// The client key of the request, in force.
    func clientKey(_ request: HTTPRequest) async throws -> (key: ClientKeyText, credential: ClientKeyCredential, attempt: AuthenticationAttempt) {
        let presented = AdminAuthorizer.bearerToken(request.headers["authorization"])
        let key = presented.flatMap(ClientKeyText.init(parsing:))
        let attempt = gate.attempt(request, as: .clientKey(key?.keyID ?? ""))
        if let refused = gate.secretRefusal(attempt, recentlyVerified: { false }) { throw Refusal.tooManyFailures(refused) }
        guard let key else {
            if presented != nil { gate.secretFailed(attempt) }
            throw Refusal.refused(presented == nil ? Self.keyRequired : Self.keyRefused)
        }
        let credential = try await keys.credential(keyID: key.keyID)
        // An unknown key costs the same hash as a wrong secret.
        guard SecretHasher.verify(key.secret, against: credential?.secretHash ?? AppAuthenticator.unknownKeyHash), let credential else {
            gate.secretFailed(attempt)
            throw Refusal.refused(Self.keyRefused)
        }
        return (key, credential, attempt)
    }

    /// The device `rid`, when the request's device secret is its own.
    func device(_ request: HTTPRequest, rid: String) async throws -> DeviceSecretCredential {
        guard let secret = AdminAuthorizer.bearerToken(request.headers["authorization"]) else { throw Refusal.refused(Self.secretRequired) }
        let attempt = gate.attempt(request, as: .device(rid))
        if let refused = gate.secretRefusal(attempt, recentlyVerified: { false }) { throw Refusal.tooManyFailures(refused) }
        let device = try await keys.deviceCredential(rid: rid)
        guard SecretHasher.verify(secret, against: device?.secretHash ?? AppAuthenticator.unknownKeyHash), let device else {
            gate.secretFailed(attempt)
            throw Refusal.refused(Self.notThisDevice(rid))
        }
        return device
    }
}
