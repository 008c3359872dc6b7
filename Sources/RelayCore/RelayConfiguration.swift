import Foundation

/// Everything `pushrelay serve` reads from `PUSHRELAY_*` environment variables.
///
/// Parsing is pure (an environment dictionary in, a value or a clear error out), so every
/// default and every rejection is tested without touching the process environment.
public struct RelayConfiguration: Sendable, Equatable {
    public var listenHost: String = "127.0.0.1"
    public var listenPort: Int = 8080
    /// The process's event loops (its `EventLoopGroup`): the API's listeners and every
    /// APNs connection run on them.
    public var threads: Int = ProcessInfo.processInfo.activeProcessorCount
    /// A libpq connection string; nil means "start the embedded cluster under `dataDirectory`".
    public var databaseURL: String?
    public var dataDirectory: String = "./.pushrelay"
    public var databasePoolSize: Int = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
    public var logLevel: Logger.Level = .info
    public var adminToken: String?
    public var secretKey: String?
    public var maxBodySize: Int = 1 << 20
    /// Seconds a request, headers and body, may take to arrive from its first byte.
    public var headerTimeoutSeconds: Int = 10
    /// Open API connections at most; nil: three quarters of the open-file limit.
    public var maxConnections: Int?
    /// Open API connections per source address (IPv6: per /64) at most; nil: a quarter of `maxConnections`.
    public var maxConnectionsPerAddress: Int?
    /// Requests answered on one API connection before it is closed.
    public var maxRequestsPerConnection: Int = 100
    /// How long a verified (app_key, master secret) pair skips the secret check.
    public var authCacheSeconds: Int = 60
    /// The APNs endpoints, overridable for the simulator (`https://127.0.0.1:2197`).
    public var apnsProductionURL = URL(string: "https://api.push.apple.com")!
    public var apnsSandboxURL = URL(string: "https://api.sandbox.push.apple.com")!
    /// APNs' broadcast channel-management endpoints (Live Activity channels, iOS 18).
    public var apnsChannelsProductionURL = URL(string: "https://api-manage-broadcast.push.apple.com:2196")!
    public var apnsChannelsSandboxURL = URL(string: "https://api-manage-broadcast.sandbox.push.apple.com:2195")!
    /// PEM CA certificates trusted for APNs besides the system's (the simulator's certificate).
    public var apnsCAFile: String?
    /// The zone of schedule triggers that name none (`time_zone`).
    public var timeZone: TimeZone = TimeZone(identifier: "UTC")!
    /// How late a scheduled occurrence may still be sent after downtime; older ones are
    /// recorded as missed.
    public var scheduleGraceSeconds: Int = 600
    /// `/v3` requests per minute per app key, for apps the admin API gave no limit of their own.
    public var rateLimitPerMinute: Int = 600_000
    /// Failed authentications per minute per client address before it is answered 429 unchecked.
    public var authFailuresPerMinute: Int = 60
    /// Device registrations per minute through one client key (`POST /client/v1/devices`).
    public var clientRegistrationsPerMinutePerKey: Int = 6000
    /// Device registrations per minute through client keys from one client address.
    public var clientRegistrationsPerMinutePerAddress: Int = 60
    /// Proxies whose `X-Forwarded-For` / `Forwarded` name the client; nobody's by default.
    public var trustedProxies: [IPNetwork] = []
    /// The bearer token `/metrics` asks for; nil serves it to loopback clients only.
    public var metricsToken: String?
    /// PEM certificate (chain) and key for HTTPS on the API listener; both or neither.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// How long a pass of a worker or scheduler loop may take beyond its own wait before
    /// `/healthz` and `/readyz` report the process stalled (`Liveness`).
    public var loopStallSeconds: Int = 60

    public init() {}

    public struct Error: Swift.Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The variables the relay reads, each with its meaning, for `pushrelay help` and docs/configuration.md.
    public static let variables: [(name: String, meaning: String)] = [
        ("PUSHRELAY_LISTEN", "host:port the API listens on (default 127.0.0.1:8080)"),
        ("PUSHRELAY_THREADS", "event-loop threads of the process, shared by the API listeners and every APNs client's connections (default: one per core)"),
        ("PUSHRELAY_DATABASE_URL", "libpq connection string; unset starts a private cluster in the data directory"),
        ("PUSHRELAY_DATA_DIR", "data directory (default ./.pushrelay)"),
        ("PUSHRELAY_POSTGRES_BIN", "where initdb and pg_ctl are, for the embedded cluster (default: the newest /usr/lib/postgresql/*/bin, then PATH)"),
        ("PUSHRELAY_DB_POOL_SIZE", "PostgreSQL connections (default max(4, 2 × cores))"),
        ("PUSHRELAY_LOG_LEVEL", "trace, debug, info, notice, warning, error (default info)"),
        ("PUSHRELAY_ADMIN_TOKEN", "admin API bearer token; unset: generated once into <data dir>/admin-token"),
        ("PUSHRELAY_SECRET_KEY", "32-byte key (64 hex chars or base64) sealing APNs credentials; unset: <data dir>/secret.key"),
        ("PUSHRELAY_MAX_BODY_SIZE", "largest request body in bytes (default 1048576)"),
        ("PUSHRELAY_HEADER_TIMEOUT_SECONDS", "seconds a request's headers and body may take to arrive from its first byte; then the connection is closed (default 10)"),
        ("PUSHRELAY_MAX_CONNECTIONS", "open API connections at most; past it new ones get 503/1030 and are closed (default: 3/4 of the open-file limit)"),
        ("PUSHRELAY_MAX_CONNECTIONS_PER_ADDRESS", "open API connections per client address (IPv6: per /64) at most; past it 503/1030 (default: a quarter of PUSHRELAY_MAX_CONNECTIONS)"),
        ("PUSHRELAY_MAX_REQUESTS_PER_CONNECTION", "requests answered on one API connection before it is closed (default 100)"),
        ("PUSHRELAY_AUTH_CACHE_SECONDS", "how long a verified app secret skips the secret check (default 60)"),
        ("PUSHRELAY_APNS_PRODUCTION_URL", "APNs production endpoint (default https://api.push.apple.com)"),
        ("PUSHRELAY_APNS_SANDBOX_URL", "APNs sandbox endpoint (default https://api.sandbox.push.apple.com)"),
        ("PUSHRELAY_APNS_CHANNELS_PRODUCTION_URL", "APNs channel-management endpoint, production (default https://api-manage-broadcast.push.apple.com:2196)"),
        ("PUSHRELAY_APNS_CHANNELS_SANDBOX_URL", "APNs channel-management endpoint, sandbox (default https://api-manage-broadcast.sandbox.push.apple.com:2195)"),
        ("PUSHRELAY_APNS_CA_FILE", "PEM CA file trusted for APNs besides the system CAs (e.g. the simulator's certificate)"),
        ("PUSHRELAY_TIME_ZONE", "IANA zone of schedule triggers without time_zone (default UTC)"),
        ("PUSHRELAY_SCHEDULE_GRACE_SECONDS", "how late a scheduled push missed during downtime may still be sent (default 600)"),
        ("PUSHRELAY_RATE_LIMIT_PER_MINUTE", "/v3 requests per minute per app key, unless set per app through the admin API (default 600000)"),
        ("PUSHRELAY_TLS_CERT", "PEM certificate (chain) for HTTPS on the API listener; with PUSHRELAY_TLS_KEY (default: plain HTTP)"),
        ("PUSHRELAY_TLS_KEY", "PEM private key of PUSHRELAY_TLS_CERT"),
        ("PUSHRELAY_AUTH_FAILURE_LIMIT_PER_MINUTE", "failed authentications per minute per client address and app key (or admin token) before 429 (default 60)"),
        ("PUSHRELAY_CLIENT_REGISTRATIONS_PER_MINUTE_PER_KEY", "device registrations per minute through one client key (default 6000)"),
        ("PUSHRELAY_CLIENT_REGISTRATIONS_PER_MINUTE_PER_ADDRESS", "device registrations per minute through client keys from one client address (default 60)"),
        ("PUSHRELAY_TRUSTED_PROXIES", "addresses/CIDRs of proxies whose X-Forwarded-For / Forwarded name the client, comma-separated (default: none)"),
        ("PUSHRELAY_METRICS_TOKEN", "bearer token /metrics asks for (at least 16 characters); unset: /metrics answers loopback clients only"),
        ("PUSHRELAY_LOOP_STALL_SECONDS", "a worker or scheduler loop that has not come round for this long beyond its own wait fails /healthz and /readyz, so the process is restarted (default 60)"),
    ]

    public static func parse(_ environment: [String: String]) throws(Error) -> RelayConfiguration {
        var configuration = RelayConfiguration()
        func value(_ name: String) -> String? {
            guard let raw = environment[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
            return raw
        }
        func positive(_ name: String, _ raw: String, max: Int = Int.max) throws(Error) -> Int {
            guard let number = Int(raw), number > 0, number <= max else {
                throw Error(description: "\(name) must be a whole number from 1 to \(max), got \"\(raw)\"")
            }
            return number
        }
        if let listen = value("PUSHRELAY_LISTEN") {
            (configuration.listenHost, configuration.listenPort) = try parseListen(listen)
        }
        if let raw = value("PUSHRELAY_THREADS") { configuration.threads = try positive("PUSHRELAY_THREADS", raw, max: 256) }
        configuration.databaseURL = value("PUSHRELAY_DATABASE_URL")
        if let raw = value("PUSHRELAY_DATA_DIR") { configuration.dataDirectory = raw }
        if let raw = value("PUSHRELAY_DB_POOL_SIZE") { configuration.databasePoolSize = try positive("PUSHRELAY_DB_POOL_SIZE", raw, max: 1000) }
        if let raw = value("PUSHRELAY_LOG_LEVEL") {
            guard let level = Logger.Level(name: raw) else {
                throw Error(description: "PUSHRELAY_LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical; got \"\(raw)\"")
            }
            configuration.logLevel = level
        }
        configuration.adminToken = value("PUSHRELAY_ADMIN_TOKEN")
        if let token = configuration.adminToken, token.utf8.count < 16 {
            throw Error(description: "PUSHRELAY_ADMIN_TOKEN must be at least 16 characters")
        }
        configuration.secretKey = value("PUSHRELAY_SECRET_KEY")
        if let raw = value("PUSHRELAY_MAX_BODY_SIZE") { configuration.maxBodySize = try positive("PUSHRELAY_MAX_BODY_SIZE", raw, max: 1 << 30) }
        if let raw = value("PUSHRELAY_HEADER_TIMEOUT_SECONDS") {
            configuration.headerTimeoutSeconds = try positive("PUSHRELAY_HEADER_TIMEOUT_SECONDS", raw, max: 3600)
        }
        if let raw = value("PUSHRELAY_MAX_CONNECTIONS") {
            configuration.maxConnections = try positive("PUSHRELAY_MAX_CONNECTIONS", raw, max: 10_000_000)
        }
        if let raw = value("PUSHRELAY_MAX_CONNECTIONS_PER_ADDRESS") {
            configuration.maxConnectionsPerAddress = try positive("PUSHRELAY_MAX_CONNECTIONS_PER_ADDRESS", raw, max: 10_000_000)
        }
        if let raw = value("PUSHRELAY_MAX_REQUESTS_PER_CONNECTION") {
            configuration.maxRequestsPerConnection = try positive("PUSHRELAY_MAX_REQUESTS_PER_CONNECTION", raw, max: 10_000_000)
        }
        if let raw = value("PUSHRELAY_AUTH_CACHE_SECONDS") {
            guard let seconds = Int(raw), seconds >= 0, seconds <= 3600 else {
                throw Error(description: "PUSHRELAY_AUTH_CACHE_SECONDS must be a whole number from 0 to 3600, got \"\(raw)\"")
            }
            configuration.authCacheSeconds = seconds
        }
        if let raw = value("PUSHRELAY_APNS_PRODUCTION_URL") {
            configuration.apnsProductionURL = try parseAPNSURL("PUSHRELAY_APNS_PRODUCTION_URL", raw)
        }
        if let raw = value("PUSHRELAY_APNS_SANDBOX_URL") {
            configuration.apnsSandboxURL = try parseAPNSURL("PUSHRELAY_APNS_SANDBOX_URL", raw)
        }
        if let raw = value("PUSHRELAY_APNS_CHANNELS_PRODUCTION_URL") {
            configuration.apnsChannelsProductionURL = try parseAPNSURL("PUSHRELAY_APNS_CHANNELS_PRODUCTION_URL", raw)
        }
        if let raw = value("PUSHRELAY_APNS_CHANNELS_SANDBOX_URL") {
            configuration.apnsChannelsSandboxURL = try parseAPNSURL("PUSHRELAY_APNS_CHANNELS_SANDBOX_URL", raw)
        }
        configuration.apnsCAFile = value("PUSHRELAY_APNS_CA_FILE")
        if let raw = value("PUSHRELAY_TIME_ZONE") {
            guard let zone = TimeZone(identifier: raw) else {
                throw Error(description: "PUSHRELAY_TIME_ZONE must be an IANA time zone such as Europe/Berlin, got \"\(raw)\"")
            }
            configuration.timeZone = zone
        }
        if let raw = value("PUSHRELAY_SCHEDULE_GRACE_SECONDS") {
            guard let seconds = Int(raw), seconds >= 0, seconds <= 7 * 86_400 else {
                throw Error(description: "PUSHRELAY_SCHEDULE_GRACE_SECONDS must be a whole number from 0 to 604800, got \"\(raw)\"")
            }
            configuration.scheduleGraceSeconds = seconds
        }
        if let raw = value("PUSHRELAY_RATE_LIMIT_PER_MINUTE") {
            configuration.rateLimitPerMinute = try positive("PUSHRELAY_RATE_LIMIT_PER_MINUTE", raw, max: 1_000_000_000)
        }
        if let raw = value("PUSHRELAY_AUTH_FAILURE_LIMIT_PER_MINUTE") {
            configuration.authFailuresPerMinute = try positive("PUSHRELAY_AUTH_FAILURE_LIMIT_PER_MINUTE", raw, max: 1_000_000_000)
        }
        if let raw = value("PUSHRELAY_CLIENT_REGISTRATIONS_PER_MINUTE_PER_KEY") {
            configuration.clientRegistrationsPerMinutePerKey = try positive("PUSHRELAY_CLIENT_REGISTRATIONS_PER_MINUTE_PER_KEY", raw, max: 1_000_000_000)
        }
        if let raw = value("PUSHRELAY_CLIENT_REGISTRATIONS_PER_MINUTE_PER_ADDRESS") {
            configuration.clientRegistrationsPerMinutePerAddress = try positive("PUSHRELAY_CLIENT_REGISTRATIONS_PER_MINUTE_PER_ADDRESS", raw, max: 1_000_000_000)
        }
        if let raw = value("PUSHRELAY_TRUSTED_PROXIES") {
            configuration.trustedProxies = try parseNetworks("PUSHRELAY_TRUSTED_PROXIES", raw)
        }
        configuration.metricsToken = value("PUSHRELAY_METRICS_TOKEN")
        if let token = configuration.metricsToken, token.utf8.count < 16 {
            throw Error(description: "PUSHRELAY_METRICS_TOKEN must be at least 16 characters")
        }
        if let raw = value("PUSHRELAY_LOOP_STALL_SECONDS") {
            configuration.loopStallSeconds = try positive("PUSHRELAY_LOOP_STALL_SECONDS", raw, max: 86_400)
        }
        configuration.tlsCertificatePath = value("PUSHRELAY_TLS_CERT")
        configuration.tlsKeyPath = value("PUSHRELAY_TLS_KEY")
        guard (configuration.tlsCertificatePath == nil) == (configuration.tlsKeyPath == nil) else {
            throw Error(description: "PUSHRELAY_TLS_CERT and PUSHRELAY_TLS_KEY go together: set both or neither")
        }
        return configuration
    }

    /// Addresses and CIDR blocks separated by commas and/or spaces.
    static func parseNetworks(_ name: String, _ raw: String) throws(Error) -> [IPNetwork] {
        var networks: [IPNetwork] = []
        for item in raw.split(whereSeparator: { $0 == "," || $0 == " " }) {
            guard let network = IPNetwork(item) else {
                throw Error(description: "\(name) must list addresses or CIDR blocks (e.g. 10.0.0.0/8, ::1), got \"\(item)\"")
            }
            networks.append(network)
        }
        return networks
    }

    /// `https://host[:port]`, nothing after the authority but an optional `/`: the client
    /// builds every path itself.
    /// A push service's endpoint (APNs', FCM's): https://host[:port], nothing more.
    public static func parseAPNSURL(_ name: String, _ raw: String) throws(Error) -> URL {
        let invalid = Error(description: "\(name) must be https://host[:port] (e.g. https://127.0.0.1:2197), got \"\(raw)\"")
        guard let components = URLComponents(string: raw), components.scheme?.lowercased() == "https",
              let host = components.host, !host.isEmpty, components.user == nil, components.password == nil,
              components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil,
              components.port.map({ (1...65535).contains($0) }) ?? true,
              let url = components.url
        else { throw invalid }
        return url
    }

    /// `host:port`, `[v6]:port` or `:port` (all interfaces of IPv4).
    static func parseListen(_ raw: String) throws(Error) -> (String, Int) {
        let invalid = Error(description: "PUSHRELAY_LISTEN must be host:port (e.g. 127.0.0.1:8080 or [::1]:8080), got \"\(raw)\"")
        var host: Substring
        var portText: Substring
        if raw.hasPrefix("[") {
            guard let close = raw.firstIndex(of: "]"), raw[raw.index(after: close)...].hasPrefix(":") else { throw invalid }
            host = raw[raw.index(after: raw.startIndex)..<close]
            portText = raw[raw.index(close, offsetBy: 2)...]
        } else {
            guard let colon = raw.lastIndex(of: ":") else { throw invalid }
            host = raw[..<colon]
            portText = raw[raw.index(after: colon)...]
            if host.contains(":") { throw invalid }
        }
        if host.isEmpty { host = "0.0.0.0" }
        guard let port = Int(portText), (0...65535).contains(port) else { throw invalid }
        return (String(host), port)
    }
}
