import Foundation
import RelayCore
import Testing
@testable import APNSClient

@Suite struct ConfigurationTests {
    static let auth = APNSClientConfiguration.Authentication.certificate(certificatePEM: "", keyPEM: "")

    @Test func endpointsGiveHostPortAndAuthority() throws {
        let production = try APNSClientConfiguration(endpoint: APNSEnvironment.production.defaultURL, authentication: Self.auth)
        #expect(production.host == "api.push.apple.com" && production.port == 443 && production.authority == "api.push.apple.com")
        let sandbox = try APNSClientConfiguration(endpoint: APNSEnvironment.sandbox.defaultURL, authentication: Self.auth)
        #expect(sandbox.host == "api.sandbox.push.apple.com")
        let simulator = try APNSClientConfiguration(endpoint: URL(string: "https://127.0.0.1:2197")!, authentication: Self.auth)
        #expect(simulator.port == 2197 && simulator.authority == "127.0.0.1:2197")
    }

    @Test(arguments: ["http://api.push.apple.com", "https:///nohost", "ftp://x"])
    func nonHTTPSEndpointsAreRefused(url: String) {
        #expect(throws: APNSConfigurationError.self) {
            try APNSClientConfiguration(endpoint: URL(string: url)!, authentication: Self.auth)
        }
    }

    @Test func boundsMustBePositive() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = try APNSClientConfiguration(
            endpoint: URL(string: "https://127.0.0.1:1")!,
            authentication: .token(keyPEM: try await ProviderTokenTests.makeKey(directory), keyID: "K", teamID: "T"))
        configuration.maxInFlight = 0
        #expect(throws: APNSConfigurationError.badBound("maxInFlight")) {
            try APNSClient(configuration: configuration, logger: Logger(label: "test"))
        }
    }

    @Test func badCredentialsFailAtStart() throws {
        var configuration = try APNSClientConfiguration(
            endpoint: URL(string: "https://127.0.0.1:1")!,
            authentication: .certificate(certificatePEM: "not a certificate", keyPEM: "not a key"))
        #expect(throws: APNSCredentialError.badCertificate("no usable certificate in the PEM")) {
            try APNSClient(configuration: configuration, logger: Logger(label: "test"))
        }
        configuration.authentication = .token(keyPEM: "nope", keyID: "K", teamID: "T")
        #expect(throws: APNSCredentialError.badKey("not a PEM private key")) {
            try APNSClient(configuration: configuration, logger: Logger(label: "test"))
        }
        configuration.caFile = "/nonexistent/ca.pem"
        configuration.authentication = Self.auth
        #expect(throws: APNSCredentialError.badCertificate("cannot read CA file /nonexistent/ca.pem")) {
            try APNSClient(configuration: configuration, logger: Logger(label: "test"))
        }
    }

    /// The CAs are loaded once per configuration and shared by every client's TLS context; a
    /// CA file that cannot be read is not remembered, so a later client still reports it.
    @Test func clientsShareOneTrustStorePerCAFile() async throws {
        #expect(try TrustStore.shared(caFile: nil) === TrustStore.shared(caFile: nil))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let caFile = directory.path("ca.crt")
        #expect(throws: APNSCredentialError.badCertificate("cannot read CA file \(caFile)")) { try TrustStore.shared(caFile: caFile) }
        _ = try await ClientBehaviorTests.makeCertificate(directory, name: "ca")
        let store = try TrustStore.shared(caFile: caFile)
        #expect(try TrustStore.shared(caFile: caFile) === store)
        #expect(try TrustStore.shared(caFile: nil) !== store)
    }
}
