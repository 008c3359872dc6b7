import Testing
@testable import RelayCore

/// The security variables: rate limits and the TLS files.
@Suite struct SecurityConfigurationTests {
    @Test func rateLimitsDefaultGenerouslyAndParse() throws {
        let defaults = try RelayConfiguration.parse([:])
        #expect(defaults.rateLimitPerMinute == 600_000 && defaults.authFailuresPerMinute == 60)
        #expect(defaults.tlsCertificatePath == nil && defaults.tlsKeyPath == nil)
        let set = try RelayConfiguration.parse(["PUSHRELAY_RATE_LIMIT_PER_MINUTE": "600", "PUSHRELAY_AUTH_FAILURE_LIMIT_PER_MINUTE": "5"])
        #expect(set.rateLimitPerMinute == 600 && set.authFailuresPerMinute == 5)
        for bad in ["0", "-1", "many"] {
            #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_RATE_LIMIT_PER_MINUTE": bad]) }
            #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_AUTH_FAILURE_LIMIT_PER_MINUTE": bad]) }
        }
    }

    @Test func tlsFilesGoTogether() throws {
        let both = try RelayConfiguration.parse(["PUSHRELAY_TLS_CERT": "/c.pem", "PUSHRELAY_TLS_KEY": "/k.pem"])
        #expect(both.tlsCertificatePath == "/c.pem" && both.tlsKeyPath == "/k.pem")
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_TLS_CERT": "/c.pem"]) }
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_TLS_KEY": "/k.pem"]) }
        let names = RelayConfiguration.variables.map(\.name)
        for name in ["PUSHRELAY_RATE_LIMIT_PER_MINUTE", "PUSHRELAY_AUTH_FAILURE_LIMIT_PER_MINUTE", "PUSHRELAY_TLS_CERT", "PUSHRELAY_TLS_KEY"] {
            #expect(names.contains(name))
        }
    }
}
