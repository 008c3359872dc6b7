import Foundation

/// How to run the simulator: where it listens, how it authenticates, and which failures it
/// acts out. Built in code by tests, or from `pushrelay apns-sim` flags by `parse(arguments:)`.
public struct APNSSimulatorConfiguration: Sendable, Equatable {
    /// A host (name or IP literal) and TCP port; port 0 picks a free one.
    public struct Endpoint: Sendable, Equatable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// `HOST:PORT`, `[IPv6]:PORT`, or a bare `PORT` (on 127.0.0.1).
        public init(parsing text: String) throws {
            let hostPart: Substring
            let portPart: Substring
            if let colon = text.lastIndex(of: ":") {
                hostPart = text[..<colon]
                portPart = text[text.index(after: colon)...]
            } else {
                hostPart = "127.0.0.1"
                portPart = Substring(text)
            }
            var host = String(hostPart)
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty, let port = Int(portPart), (0...65535).contains(port) else {
                throw APNSSimulatorError("expected HOST:PORT, got \"\(text)\"")
            }
            self.init(host: host, port: port)
        }

        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// The HTTP/2 + TLS listener.
    public var listen = Endpoint(host: "127.0.0.1", port: 2197)
    /// The plain-HTTP control endpoint (`/stats`, `/deliveries`, `/reset`, `/rates`, `/network`);
    /// none when `nil`.
    public var control: Endpoint?
    /// PEM certificate (chain) and key to serve; when both are `nil` a self-signed P-256
    /// certificate for 127.0.0.1 and localhost is generated at start.
    public var certificatePath: String?
    public var keyPath: String?
    /// Where to write the generated certificate (PEM) so clients can trust it.
    public var writeCertificatePath: String?
    /// Event loops, each with its own SO_REUSEPORT listener.
    public var threads = 1
    /// Advertised in SETTINGS_MAX_CONCURRENT_STREAMS.
    public var maxConcurrentStreams = 1000
    /// Key id → PEM of the P-256 key whose JWTs are accepted.
    public var jwtKeys: [String: String] = [:]
    /// Let every request through without looking at `authorization`.
    public var acceptAnyToken = false
    /// Tokens starting with this (hex, any case) are answered 410 Unregistered.
    public var unregisteredPrefix: String?
    /// Tokens starting with this are answered 400 BadDeviceToken.
    public var badTokenPrefix: String?
    /// Push type → the prefix of the tokens of its kind (`TokenKinds`): those take that push
    /// type only, and it goes to them only.
    public var tokenKindPrefixes: [String: String] = [:]
    /// Tokens starting with this are PushKit VoIP tokens (`tokenKindPrefixes["voip"]`).
    public var voipTokenPrefix: String? {
        get { tokenKindPrefixes["voip"] }
        set { tokenKindPrefixes["voip"] = newValue }
    }
    /// Fractions (0…1) of valid requests answered 429, 500 and 503.
    public var rate429 = 0.0
    public var rate500 = 0.0
    public var rate503 = 0.0
    /// Seeds the random failures; event loop `i` uses `seed + i`.
    public var seed: UInt64 = 0
    /// After this many streams a connection gets GOAWAY (the streams already accepted are
    /// answered); `nil` never.
    public var goawayAfter: Int?
    /// After this many streams a connection is reset (TCP RST, no GOAWAY): the requests in
    /// flight on it get no answer, though the simulator may have recorded them; `nil` never.
    public var resetAfter: Int?
    /// For this many seconds after start, every TLS handshake fails (the connection is
    /// closed as soon as it is accepted).
    public var refuseTLSSeconds = 0
    /// Delay before each response, in milliseconds.
    public var latencyMilliseconds = 0
    /// Each response's delay is the latency ± up to this, uniformly (drawn from `seed`).
    public var latencyJitterMilliseconds = 0
    /// Bytes per second each connection may write, and read; 0 for no cap.
    public var bandwidthBytesPerSecond = 0
    /// Device tokens whose last payload is remembered; the oldest is forgotten beyond this.
    public var maxRecordedTokens = 10_000
    /// Connections open at once; more are closed as soon as they are accepted.
    public var maxConnections = 4096

    public init() {}

    /// The latency, jitter and bandwidth the simulator starts with.
    public var network: NetworkShape {
        NetworkShape(latencyMilliseconds: latencyMilliseconds, jitterMilliseconds: latencyJitterMilliseconds,
                     bandwidthBytesPerSecond: bandwidthBytesPerSecond)
    }

    /// Throws when values are out of range or contradict each other.
    public func validate() throws {
        guard (1...64).contains(threads) else { throw APNSSimulatorError("--threads must be 1...64") }
        guard (1...Int(Int32.max)).contains(maxConcurrentStreams) else {
            throw APNSSimulatorError("--max-concurrent-streams must be at least 1")
        }
        for (name, rate) in [("--rate-429", rate429), ("--rate-500", rate500), ("--rate-503", rate503)] {
            guard (0...1).contains(rate) else { throw APNSSimulatorError("\(name) must be between 0 and 1") }
        }
        guard rate429 + rate500 + rate503 <= 1 else { throw APNSSimulatorError("the rates add up to more than 1") }
        guard (certificatePath == nil) == (keyPath == nil) else {
            throw APNSSimulatorError("--cert and --key go together")
        }
        if let goawayAfter, goawayAfter < 1 { throw APNSSimulatorError("--goaway-after must be at least 1") }
        if let resetAfter, resetAfter < 1 { throw APNSSimulatorError("--reset-after must be at least 1") }
        guard refuseTLSSeconds >= 0 else { throw APNSSimulatorError("--refuse-tls-for must not be negative") }
        guard latencyMilliseconds >= 0 else { throw APNSSimulatorError("--latency-ms must not be negative") }
        guard latencyJitterMilliseconds >= 0 else { throw APNSSimulatorError("--latency-jitter-ms must not be negative") }
        guard bandwidthBytesPerSecond >= 0 else {
            throw APNSSimulatorError("--bandwidth-bytes-per-second must not be negative")
        }
        guard maxRecordedTokens >= 0 else { throw APNSSimulatorError("--max-recorded must not be negative") }
        guard maxConnections >= 1 else { throw APNSSimulatorError("--max-connections must be at least 1") }
    }

    public static let usage = """
        usage: pushrelay apns-sim [flags]
          An APNs look-alike: HTTP/2 over TLS, POST /3/device/<token>, APNs' statuses and reasons.

          --listen HOST:PORT            HTTP/2+TLS listener (default 127.0.0.1:2197; port 0 = any)
          --control HOST:PORT           plain-HTTP control endpoint: GET /stats, GET /deliveries[?token=],
                                        POST /reset, GET|PUT /rates, GET|PUT /network (default: none)
          --cert PATH --key PATH        PEM certificate chain and key (default: a self-signed P-256
                                        certificate for 127.0.0.1 and localhost, made at start)
          --write-cert PATH             write the generated certificate there, for clients to trust
          --threads N                   event loops, one listener each (default 1)
          --max-concurrent-streams N    SETTINGS_MAX_CONCURRENT_STREAMS (default 1000)
          --jwt-key KEYID=PATH          accept ES256 JWTs with this kid, checked with this P-256 PEM key
                                        (public or private); repeatable
          --accept-any-token            accept every request, with or without a token
          --unregistered-prefix HEX     tokens starting with HEX get 410 Unregistered
          --bad-token-prefix HEX        tokens starting with HEX get 400 BadDeviceToken
          --voip-token-prefix HEX       tokens starting with HEX are VoIP tokens: they take voip pushes
                                        only, and voip pushes only them (else 400 DeviceTokenNotForTopic)
          --token-kind-prefix KIND=HEX  the same for KIND (voip, location, complication, fileprovider,
                                        pushtotalk, liveactivity); repeatable
          --rate-429 F --rate-500 F --rate-503 F
                                        fractions (0..1) of valid requests that fail so
          --seed N                      seed for those random failures (default 0)
          --goaway-after N              GOAWAY after N streams on a connection
          --reset-after N               reset a connection (TCP RST) after N streams, requests in flight
                                        unanswered
          --refuse-tls-for SECONDS      fail every TLS handshake for SECONDS after start
          --latency-ms N                delay every response by N ms
          --latency-jitter-ms J         each delay is N ± J ms, uniformly (from --seed); answers may
                                        overtake one another, as on a real network
          --bandwidth-bytes-per-second B
                                        cap each connection's HTTP/2 bytes at B per second each way
                                        (a token bucket; default 0: no cap)
          --max-recorded N              device tokens whose last payload is kept (default 10000)
          --max-connections N           connections open at once; more are closed (default 4096)

          Authentication: with --jwt-key, requests need `authorization: bearer <jwt>` (403
          MissingProviderToken / InvalidProviderToken / ExpiredProviderToken after an hour; 429
          TooManyProviderTokenUpdates for a new token within 20 minutes of the previous one on a
          connection), and a connection allows one stream until a request has carried a valid
          token. Without keys (certificate mode) requests without `authorization` pass and
          tokens are refused (403 InvalidProviderToken).
        """

    /// Reads `pushrelay apns-sim` flags (the arguments after the subcommand).
    ///
    /// Accepts `--flag value` and `--flag=value`; `--jwt-key` reads the key file. Throws an
    /// `APNSSimulatorError` naming the problem, or with `isHelpRequest` for `--help`.
    public static func parse(arguments: [String]) throws -> APNSSimulatorConfiguration {
        var configuration = APNSSimulatorConfiguration()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            var flag = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst() else { throw APNSSimulatorError("\(flag) needs a value") }
                return next
            }
            func number<T: LosslessStringConvertible>(_: T.Type) throws -> T {
                let text = try value()
                guard let parsed = T(text) else { throw APNSSimulatorError("\(flag): not a number: \(text)") }
                return parsed
            }
            switch flag {
            case "--help", "-h": throw APNSSimulatorError(usage, isHelpRequest: true)
            case "--listen": configuration.listen = try Endpoint(parsing: value())
            case "--control": configuration.control = try Endpoint(parsing: value())
            case "--cert": configuration.certificatePath = try value()
            case "--key": configuration.keyPath = try value()
            case "--write-cert": configuration.writeCertificatePath = try value()
            case "--threads": configuration.threads = try number(Int.self)
            case "--max-concurrent-streams": configuration.maxConcurrentStreams = try number(Int.self)
            case "--jwt-key":
                let text = try value()
                guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                    throw APNSSimulatorError("--jwt-key expects KEYID=PATH")
                }
                let path = String(text[text.index(after: equals)...])
                guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw APNSSimulatorError("--jwt-key: cannot read \(path)")
                }
                configuration.jwtKeys[String(text[..<equals])] = pem
            case "--accept-any-token": configuration.acceptAnyToken = true
            case "--unregistered-prefix": configuration.unregisteredPrefix = try value()
            case "--bad-token-prefix": configuration.badTokenPrefix = try value()
            case "--voip-token-prefix": configuration.voipTokenPrefix = try value()
            case "--token-kind-prefix":
                let text = try value()
                guard let equals = text.firstIndex(of: "="), TokenKinds.kinds.contains(String(text[..<equals])) else {
                    throw APNSSimulatorError("--token-kind-prefix expects KIND=HEX, KIND one of \(TokenKinds.kinds.sorted().joined(separator: ", "))")
                }
                configuration.tokenKindPrefixes[String(text[..<equals])] = String(text[text.index(after: equals)...])
            case "--rate-429": configuration.rate429 = try number(Double.self)
            case "--rate-500": configuration.rate500 = try number(Double.self)
            case "--rate-503": configuration.rate503 = try number(Double.self)
            case "--seed": configuration.seed = try number(UInt64.self)
            case "--goaway-after": configuration.goawayAfter = try number(Int.self)
            case "--reset-after": configuration.resetAfter = try number(Int.self)
            case "--refuse-tls-for": configuration.refuseTLSSeconds = try number(Int.self)
            case "--latency-ms": configuration.latencyMilliseconds = try number(Int.self)
            case "--latency-jitter-ms": configuration.latencyJitterMilliseconds = try number(Int.self)
            case "--bandwidth-bytes-per-second": configuration.bandwidthBytesPerSecond = try number(Int.self)
            case "--max-recorded": configuration.maxRecordedTokens = try number(Int.self)
            case "--max-connections": configuration.maxConnections = try number(Int.self)
            default: throw APNSSimulatorError("unknown flag \(argument)\n\(usage)")
            }
        }
        try configuration.validate()
        return configuration
    }
}
