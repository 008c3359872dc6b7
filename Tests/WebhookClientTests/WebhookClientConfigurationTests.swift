import Testing
@testable import WebhookClient

struct WebhookClientConfigurationTests {
    @Test func defaults() throws {
        let configuration = try WebhookClientConfiguration.parse([:])
        #expect(configuration == WebhookClientConfiguration())
        #expect(!configuration.allowPrivate)
        #expect(configuration.connectTimeout == .seconds(5))
        #expect(configuration.timeout == .seconds(10))
        #expect(configuration.maxConcurrentPosts == 32)
    }

    @Test func reads() throws {
        let configuration = try WebhookClientConfiguration.parse([
            "PUSHRELAY_WEBHOOK_ALLOW_PRIVATE": "1", "PUSHRELAY_WEBHOOK_CA_FILE": "/tmp/ca.pem",
            "PUSHRELAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS": "2", "PUSHRELAY_WEBHOOK_TIMEOUT_SECONDS": "30", "PUSHRELAY_WEBHOOK_MAX_CONCURRENT": "8",
        ])
        #expect(configuration.allowPrivate)
        #expect(configuration.caFile == "/tmp/ca.pem")
        #expect(configuration.connectTimeout == .seconds(2))
        #expect(configuration.timeout == .seconds(30))
        #expect(configuration.maxConcurrentPosts == 8)
    }

    @Test func refuses() {
        #expect(throws: WebhookClientConfiguration.Error(description: "PUSHRELAY_WEBHOOK_ALLOW_PRIVATE must be 0 or 1, got \"yes\"")) {
            try WebhookClientConfiguration.parse(["PUSHRELAY_WEBHOOK_ALLOW_PRIVATE": "yes"])
        }
        #expect(throws: WebhookClientConfiguration.Error(description: "PUSHRELAY_WEBHOOK_TIMEOUT_SECONDS must be a whole number from 1 to 600, got \"0\"")) {
            try WebhookClientConfiguration.parse(["PUSHRELAY_WEBHOOK_TIMEOUT_SECONDS": "0"])
        }
    }
}
