import APNSSimulator
import RelayCrypto

/// How `pushrelay fcm-sim` listens and behaves: the server, TLS, rates, latency, token
/// prefixes and control endpoint as the APNs simulator's (`server`), plus the service
/// accounts it trusts and the lifetime of the access tokens it issues.
public struct FCMSimulatorConfiguration: Sendable {
    /// Listen address, threads, TLS, rates, latency, `unregisteredPrefix` (404 UNREGISTERED),
    /// `badTokenPrefix` (400 INVALID_ARGUMENT about the token), control endpoint.
    public var server: APNSSimulatorConfiguration
    /// The accounts whose assertions are verified (by `client_email`, with the public half of
    /// `private_key`) and whose project's `messages:send` they may call.
    public var serviceAccounts: [FCMServiceAccount]
    /// `expires_in` of the access tokens issued, in seconds.
    public var accessTokenLifetime: Int = 3600
    /// `Retry-After` sent with scripted 429 and 503 answers, in seconds (nil: none).
    public var retryAfterSeconds: Int? = 1

    public init(server: APNSSimulatorConfiguration = APNSSimulatorConfiguration(), serviceAccounts: [FCMServiceAccount]) {
        self.server = server
        self.serviceAccounts = serviceAccounts
    }
}
