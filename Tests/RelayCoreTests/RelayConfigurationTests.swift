import Testing
@testable import RelayCore

@Suite struct RelayConfigurationTests {
    @Test func defaultsWithAnEmptyEnvironment() throws {
        let configuration = try RelayConfiguration.parse([:])
        #expect(configuration.listenHost == "127.0.0.1")
        #expect(configuration.listenPort == 8080)
        #expect(configuration.databaseURL == nil)
        #expect(configuration.dataDirectory == "./.pushrelay")
        #expect(configuration.maxBodySize == 1_048_576)
        #expect(configuration.logLevel == .info)
        #expect(configuration.headerTimeoutSeconds == 10)
        #expect(configuration.maxConnections == nil)
    }

    @Test func readsEveryVariable() throws {
        let configuration = try RelayConfiguration.parse([
            "PUSHRELAY_LISTEN": "[::1]:9000",
            "PUSHRELAY_THREADS": "3",
            "PUSHRELAY_DATABASE_URL": "host=/tmp dbname=x",
            "PUSHRELAY_DATA_DIR": "/var/lib/pushrelay",
            "PUSHRELAY_DB_POOL_SIZE": "7",
            "PUSHRELAY_LOG_LEVEL": "debug",
            "PUSHRELAY_ADMIN_TOKEN": "0123456789abcdef0123",
            "PUSHRELAY_SECRET_KEY": String(repeating: "ab", count: 32),
            "PUSHRELAY_MAX_BODY_SIZE": "2048",
            "PUSHRELAY_AUTH_CACHE_SECONDS": "0",
            "PUSHRELAY_HEADER_TIMEOUT_SECONDS": "3",
            "PUSHRELAY_MAX_CONNECTIONS": "500",
            "PUSHRELAY_MAX_CONNECTIONS_PER_ADDRESS": "50",
            "PUSHRELAY_MAX_REQUESTS_PER_CONNECTION": "20",
        ])
        #expect(configuration.headerTimeoutSeconds == 3)
        #expect(configuration.maxConnections == 500)
        #expect(configuration.maxConnectionsPerAddress == 50)
        #expect(configuration.maxRequestsPerConnection == 20)
        #expect(configuration.listenHost == "::1")
        #expect(configuration.listenPort == 9000)
        #expect(configuration.threads == 3)
        #expect(configuration.databaseURL == "host=/tmp dbname=x")
        #expect(configuration.dataDirectory == "/var/lib/pushrelay")
        #expect(configuration.databasePoolSize == 7)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.adminToken == "0123456789abcdef0123")
        #expect(configuration.maxBodySize == 2048)
        #expect(configuration.authCacheSeconds == 0)
    }

    @Test(arguments: ["8080", "localhost", "a:b:c", "[::1]", "1.2.3.4:99999", "1.2.3.4:-1"])
    func rejectsMalformedListenAddresses(_ raw: String) {
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_LISTEN": raw]) }
    }

    @Test func listenWithoutHostMeansAllInterfaces() throws {
        let configuration = try RelayConfiguration.parse(["PUSHRELAY_LISTEN": ":8081"])
        #expect(configuration.listenHost == "0.0.0.0")
        #expect(configuration.listenPort == 8081)
    }

    @Test func rejectsBadNumbersLevelsAndShortTokens() {
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_THREADS": "0"]) }
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_HEADER_TIMEOUT_SECONDS": "0"]) }
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_MAX_CONNECTIONS": "-5"]) }
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_MAX_CONNECTIONS_PER_ADDRESS": "0"]) }
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_MAX_REQUESTS_PER_CONNECTION": "0"]) }
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_DB_POOL_SIZE": "many"]) }
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_LOG_LEVEL": "loud"]) }
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_ADMIN_TOKEN": "short"]) }
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_AUTH_CACHE_SECONDS": "-1"]) }
    }

    @Test func apnsEndpointsDefaultToApple() throws {
        let configuration = try RelayConfiguration.parse([:])
        #expect(configuration.apnsProductionURL.absoluteString == "https://api.push.apple.com")
        #expect(configuration.apnsSandboxURL.absoluteString == "https://api.sandbox.push.apple.com")
        #expect(configuration.apnsCAFile == nil)
        let names = RelayConfiguration.variables.map(\.name)
        for name in ["PUSHRELAY_APNS_PRODUCTION_URL", "PUSHRELAY_APNS_SANDBOX_URL", "PUSHRELAY_APNS_CA_FILE"] {
            #expect(names.contains(name))
        }
    }

    @Test func apnsEndpointsPointAtTheSimulator() throws {
        let configuration = try RelayConfiguration.parse([
            "PUSHRELAY_APNS_PRODUCTION_URL": "https://127.0.0.1:2197",
            "PUSHRELAY_APNS_SANDBOX_URL": "https://[::1]:2197/",
            "PUSHRELAY_APNS_CA_FILE": "/tmp/simulator-cert.pem",
        ])
        #expect(configuration.apnsProductionURL.host == "127.0.0.1")
        #expect(configuration.apnsProductionURL.port == 2197)
        #expect(configuration.apnsSandboxURL.port == 2197)
        #expect(configuration.apnsCAFile == "/tmp/simulator-cert.pem")
    }

    @Test(arguments: [
        "http://127.0.0.1:2197", "127.0.0.1:2197", "https://", "https://host/3/device", "https://host?x=1",
        "https://user:pw@host", "https://host:0", "ftp://host",
    ])
    func rejectsAPNsEndpointsThatAreNotHTTPSHosts(_ raw: String) {
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_APNS_PRODUCTION_URL": raw]) }
        #expect(throws: RelayConfiguration.Error.self) { try RelayConfiguration.parse(["PUSHRELAY_APNS_SANDBOX_URL": raw]) }
    }
}
