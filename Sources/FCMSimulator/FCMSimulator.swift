import APNSSimulator
import EventLoops
import Foundation
import RelayCore
import RelayCrypto

/// An FCM HTTP v1 look-alike on the APNs simulator's TLS and HTTP/2 server: the OAuth2
/// token endpoint (it verifies each RS256 assertion against the service account's public
/// key and issues access tokens) and `messages:send` (it checks the access token and the
/// message, acts out scripted failures and latency, and records what it accepted).
///
/// The control endpoint has the APNs simulator's routes (`/stats`, `/deliveries`, `/reset`,
/// `/rates`, `/network`) plus `GET`/`PUT /token-endpoint` (`{"down":true}` makes the token
/// endpoint answer 503) and `POST /revoke-tokens` (every issued access token then gets 401).
public final class FCMSimulator: Sendable {
    public let configuration: FCMSimulatorConfiguration
    private let server: APNSSimulator
    private let registry: AccessTokenRegistry

    /// The certificate served, in PEM: clients trust this.
    public var certificatePEM: String { server.certificatePEM }

    public init(configuration: FCMSimulatorConfiguration, logger: Logger, group: EventLoopGroup = .shared) throws {
        var accounts: [String: AssertionCheck.Account] = [:]
        for account in configuration.serviceAccounts {
            guard let publicKey = try RS256Signer(pem: account.privateKeyPEM).publicKeyPEM else {
                throw CredentialError("the key of \(account.clientEmail) has no public half")
            }
            accounts[account.clientEmail] = .init(projectID: account.projectID, verifier: try RS256Verifier(publicKeyPEM: publicKey))
        }
        let assertions = AssertionCheck(accounts: accounts)
        let registry = AccessTokenRegistry()
        self.configuration = configuration
        self.registry = registry
        server = try APNSSimulator(
            configuration: configuration.server, logger: logger, group: group, serviceName: "FCM", requiresToken: false,
            authDescription: "oauth2 (\(accounts.count) service account\(accounts.count == 1 ? "" : "s"))",
            makeService: { index in
                FCMRequestHandler(assertions: assertions, registry: registry, configuration: configuration, index: index)
            },
            speaksHTTP1: true,
            controlRoutes: { method, path, body in FCMSimulator.control(method, path, body, registry: registry) })
    }

    /// Binds and starts; returns the port and the control port (port 0 resolved).
    @discardableResult
    public func start() throws -> (port: Int, controlPort: Int?) { try server.start() }

    public func shutdown() async { await server.shutdown() }

    public var stats: APNSSimulatorStats { server.stats }

    /// The last accepted message per registration token (or just `token`'s); `payload` is the request body.
    public func deliveries(token: String? = nil) -> [APNSDelivery] { server.deliveries(token: token) }

    public func reset() { server.reset() }

    public func setRates(_ rates: FailureRates) { server.setRates(rates) }

    public func setNetwork(_ network: NetworkShape) { server.setNetwork(network) }

    /// Makes the token endpoint answer 503 (`true`) or work again.
    public func setTokenEndpointDown(_ down: Bool) { registry.isDown = down }

    /// Forgets every access token issued: sends with them get 401 until the client fetches a new one.
    public func revokeAccessTokens() { registry.revokeAll() }

    /// Access tokens issued since start.
    public var accessTokensIssued: Int { registry.issuedCount }

    private static func control(_ method: String, _ path: String, _ body: [UInt8], registry: AccessTokenRegistry)
        -> (status: Int32, body: [UInt8])? {
        switch (method, path) {
        case ("GET", "/token-endpoint"):
            return (200, FCMErrorBody.json(TokenEndpointState(down: registry.isDown, issued: registry.issuedCount)))
        case ("PUT", "/token-endpoint"):
            guard let setting = try? JSONDecoder().decode(TokenEndpointSetting.self, from: Data(body)) else {
                return (400, FCMErrorBody.json(["error": "expected {\"down\": true|false}"]))
            }
            registry.isDown = setting.down
            return (200, FCMErrorBody.json(TokenEndpointState(down: setting.down, issued: registry.issuedCount)))
        case ("POST", "/revoke-tokens"):
            registry.revokeAll()
            return (200, FCMErrorBody.json(["revoked": true]))
        default:
            return nil
        }
    }

    /// `PUT /token-endpoint`'s body.
    private struct TokenEndpointSetting: Decodable {
        var down: Bool
    }

    /// The control port's view of the token endpoint.
    private struct TokenEndpointState: Encodable {
        var down: Bool
        var issued: Int
    }
}
