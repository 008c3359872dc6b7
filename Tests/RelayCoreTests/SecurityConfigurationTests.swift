import Testing
@testable import RelayCore

/// The security variables: rate limits, trusted proxies, the metrics token and the TLS files.
@Suite struct SecurityConfigurationTests {
    @Test func rateLimitsDefaultGenerouslyAndParse() throws {
        let defaults = try RelayConfiguration.parse([:])
        #expect(defaults.rateLimitPerMinute == 600_000 && defaults.authFailuresPerMinute == 60)
        #expect(defaults.tlsCertificatePath == nil && defaults.tlsKeyPath == nil)
        let set = try RelayConfiguration.parse(["PUSHRELAY_RATE_LIMIT_PER_MINUTE": "600", "PUSHRELAY_AUTH_FAILURE_LIMIT_PER_MINUTE": "5"])
        #expect(set.rateLimitPerMinute == 600 && set.authFailuresPerMinute == 5)
        #expect(defaults.clientRegistrationsPerMinutePerKey == 6000 && defaults.clientRegistrationsPerMinutePerAddress == 60)
        let client = try RelayConfiguration.parse(["PUSHRELAY_CLIENT_REGISTRATIONS_PER_MINUTE_PER_KEY": "7",
                                                   "PUSHRELAY_CLIENT_REGISTRATIONS_PER_MINUTE_PER_ADDRESS": "3"])
        #expect(client.clientRegistrationsPerMinutePerKey == 7 && client.clientRegistrationsPerMinutePerAddress == 3)
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

    @Test func trustedProxiesAndTheMetricsTokenParse() throws {
        let defaults = try RelayConfiguration.parse([:])
        #expect(defaults.trustedProxies.isEmpty && defaults.metricsToken == nil)
        let set = try RelayConfiguration.parse(["PUSHRELAY_TRUSTED_PROXIES": "10.0.0.0/8, ::1 192.0.2.7",
                                                "PUSHRELAY_METRICS_TOKEN": "metrics-token-0123456789"])
        #expect(set.trustedProxies.map(\.description) == ["10.0.0.0/8", "::1/128", "192.0.2.7/32"])
        #expect(set.metricsToken == "metrics-token-0123456789")
        for bad in ["10.0.0.0/33", "proxy.internal", "10.0.0.1/8/8"] {
            #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_TRUSTED_PROXIES": bad]) }
        }
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_METRICS_TOKEN": "short"]) }
        let names = RelayConfiguration.variables.map(\.name)
        #expect(names.contains("PUSHRELAY_TRUSTED_PROXIES") && names.contains("PUSHRELAY_METRICS_TOKEN"))
    }
}
