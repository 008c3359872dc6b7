import RelayCore

/// The webhook client's bounds and trust, read from `PUSHRELAY_WEBHOOK_*` variables.
public struct WebhookClientConfiguration: Sendable, Equatable {
    /// Lets webhooks reach private, loopback and link-local addresses: for tests and
    /// single-host setups only (the SSRF guard, `AddressPolicy`).
    public var allowPrivate = false
    /// PEM CA file trusted besides the system's (a test receiver's certificate).
    public var caFile: String?
    /// Resolving the host, connecting and the TLS handshake together, at most.
    public var connectTimeout: Duration = .seconds(5)
    /// The whole attempt, from the start to the answer read, at most.
    public var timeout: Duration = .seconds(10)
    /// Posts in flight at once; more wait their turn.
    public var maxConcurrentPosts = 32
    /// A body larger than this is refused without connecting.
    public var maxRequestBytes = 1 << 20
    /// What is read of an answer.
    public var answerLimits = AnswerLimits()

    public struct AnswerLimits: Sendable, Equatable {
        /// The status line and headers, at most.
        public var headBytes = 16 * 1024
        /// The body read at most; the rest is never read (the connection closes).
        public var bodyBytes = 4 * 1024

        public init() {}
    }

    public init() {}

    public typealias Error = EnvironmentSettings.Error

    /// The variables, for `pushrelay help` and docs/configuration.md.
    public static let variables: [(name: String, meaning: String)] = [
        ("PUSHRELAY_WEBHOOK_ALLOW_PRIVATE", "1: webhooks may reach private, loopback and link-local addresses (tests, single-host setups); 0 refuses them, the SSRF guard (default 0)"),
        ("PUSHRELAY_WEBHOOK_CA_FILE", "PEM CA file trusted for HTTPS webhooks besides the system CAs (e.g. a test receiver's certificate)"),
        ("PUSHRELAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS", "a webhook's DNS lookup, connect and TLS handshake may take this long together (default 5)"),
        ("PUSHRELAY_WEBHOOK_TIMEOUT_SECONDS", "a webhook POST may take this long in all, answer included (default 10)"),
        ("PUSHRELAY_WEBHOOK_MAX_CONCURRENT", "webhook POSTs in flight at once per process; more wait (default 32)"),
    ]

    public static func parse(_ environment: [String: String]) throws(Error) -> WebhookClientConfiguration {
        var configuration = WebhookClientConfiguration()
        let settings = EnvironmentSettings(environment)
        switch settings.value("PUSHRELAY_WEBHOOK_ALLOW_PRIVATE") {
        case nil, "0": configuration.allowPrivate = false
        case "1": configuration.allowPrivate = true
        case let other?: throw Error(description: "PUSHRELAY_WEBHOOK_ALLOW_PRIVATE must be 0 or 1, got \"\(other)\"")
        }
        configuration.caFile = settings.value("PUSHRELAY_WEBHOOK_CA_FILE")
        if let seconds = try settings.number("PUSHRELAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS", in: 1...300) { configuration.connectTimeout = .seconds(seconds) }
        if let seconds = try settings.number("PUSHRELAY_WEBHOOK_TIMEOUT_SECONDS", in: 1...600) { configuration.timeout = .seconds(seconds) }
        if let count = try settings.number("PUSHRELAY_WEBHOOK_MAX_CONCURRENT", in: 1...10_000) { configuration.maxConcurrentPosts = count }
        return configuration
    }
}
