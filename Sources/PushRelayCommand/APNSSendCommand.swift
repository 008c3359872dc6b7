import APNSClient
import EventLoops
import Foundation
import RelayCore

/// `pushrelay apns-send`: one notification (or `--count N`) through the APNs client, to
/// try credentials, reach the simulator from the README tour, and benchmark the client.
///
/// The endpoint and the extra CA file come from `PUSHRELAY_APNS_PRODUCTION_URL`,
/// `PUSHRELAY_APNS_SANDBOX_URL` and `PUSHRELAY_APNS_CA_FILE`, as for the relay.
enum APNSSendCommand {
    static let usage = """
        usage: pushrelay apns-send --topic BUNDLE_ID (--key PATH.p8 --key-id ID --team-id ID | --cert PEM --cert-key PEM)
                                   [--token HEX] [--alert TEXT | --payload JSON] [flags]
          Sends notifications with PushRelay's APNs client and prints what APNs answered.

          --environment sandbox|production   which endpoint (default sandbox); see PUSHRELAY_APNS_*_URL
          --token HEX                         device token (default: random); with --count, the last
                                              8 digits are replaced by a counter, so every send has its own
          --topic BUNDLE_ID                   apns-topic
          --key PATH.p8 --key-id ID --team-id ID   token authentication (ES256 JWT)
          --cert PEM --cert-key PEM           certificate authentication
          --alert TEXT                        payload {"aps":{"alert":TEXT}} (default "Hello from PushRelay")
          --payload JSON                      the whole payload instead
          --push-type TYPE                    alert, background, voip, … (default alert)
          --priority 10|5|1                   default 10 (5 for background)
          --collapse-id ID  --expiration UNIX_SECONDS
          --count N                           send N notifications, print the rate and the result counts
          --connections N                     most HTTP/2 connections (default 4)
          --in-flight N                       most notifications waiting for an answer (default 4000)
          --loops N                           client event loop threads (default 1)
        Exit status: 0 when every notification was accepted, 1 otherwise, 2 for bad flags.
        """

    struct Options {
        var environment = APNSEnvironment.sandbox
        var token: String?
        var topic: String?
        var keyPath: String?
        var keyID: String?
        var teamID: String?
        var certificatePath: String?
        var certificateKeyPath: String?
        var payload = Array(#"{"aps":{"alert":"Hello from PushRelay"}}"#.utf8)
        var pushType = APNSPushType.alert
        var priority: APNSPriority?
        var collapseID: String?
        var expiration: Int?
        var count = 1
        var connections = 4
        var inFlight = 4000
        var loops = 1
    }

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ arguments: [String]) throws -> Options? {
        var options = Options()
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            func value() throws -> String {
                guard let next = remaining.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
                return next
            }
            func number(_ range: ClosedRange<Int>) throws -> Int {
                let text = try value()
                guard let parsed = Int(text), range.contains(parsed) else {
                    throw UsageError(description: "\(flag) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(text)")
                }
                return parsed
            }
            switch flag {
            case "--help", "-h": return nil
            case "--environment":
                let text = try value()
                guard let environment = APNSEnvironment(rawValue: text) else {
                    throw UsageError(description: "--environment must be sandbox or production, got \(text)")
                }
                options.environment = environment
            case "--token": options.token = try value().lowercased()
            case "--topic": options.topic = try value()
            case "--key": options.keyPath = try value()
            case "--key-id": options.keyID = try value()
            case "--team-id": options.teamID = try value()
            case "--cert": options.certificatePath = try value()
            case "--cert-key": options.certificateKeyPath = try value()
            case "--alert":
                options.payload = CanonicalJSON.bytes(.object(["aps": .object(["alert": .string(try value())])]))
            case "--payload":
                let text = try value()
                guard case .object? = try? JSONValue.parse(Array(text.utf8)) else {
                    throw UsageError(description: "--payload must be a JSON object")
                }
                options.payload = Array(text.utf8)
            case "--push-type":
                let text = try value()
                guard let type = APNSPushType(rawValue: text) else {
                    throw UsageError(description: "--push-type must be one of \(APNSPushType.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                options.pushType = type
            case "--priority":
                let text = try value()
                guard let priority = Int(text).flatMap(APNSPriority.init(rawValue:)) else {
                    throw UsageError(description: "--priority must be 10, 5 or 1, got \(text)")
                }
                options.priority = priority
            case "--collapse-id": options.collapseID = try value()
            case "--expiration": options.expiration = try number(0...Int(Int32.max) * 2)
            case "--count": options.count = try number(1...100_000_000)
            case "--connections": options.connections = try number(1...1000)
            case "--in-flight": options.inFlight = try number(1...1_000_000)
            case "--loops": options.loops = try number(1...64)
            default: throw UsageError(description: "unknown flag \(flag)")
            }
        }
        if options.topic == nil { throw UsageError(description: "--topic is required") }
        let tokenAuth = options.keyPath != nil || options.keyID != nil || options.teamID != nil
        let certificateAuth = options.certificatePath != nil || options.certificateKeyPath != nil
        if tokenAuth == certificateAuth {
            throw UsageError(description: "give either --key, --key-id and --team-id, or --cert and --cert-key")
        }
        if tokenAuth, options.keyPath == nil || options.keyID == nil || options.teamID == nil {
            throw UsageError(description: "--key, --key-id and --team-id go together")
        }
        if certificateAuth, options.certificatePath == nil || options.certificateKeyPath == nil {
            throw UsageError(description: "--cert and --cert-key go together")
        }
        if let token = options.token, token.count < 8 || !token.allSatisfy(\.isHexDigit) {
            throw UsageError(description: "--token must be hex, at least 8 digits")
        }
        return options
    }

    static func run(arguments: [String]) async -> Int32 {
        let options: Options
        do {
            guard let parsed = try parse(arguments) else {
                print(usage)
                return 0
            }
            options = parsed
        } catch {
            FileHandle.standardError.write(Data("pushrelay apns-send: \(error)\n\n\(usage)\n".utf8))
            return 2
        }
        let client: APNSClient
        let endpoint: URL
        do {
            let relay = try RelayConfiguration.parse(ProcessInfo.processInfo.environment)
            endpoint = options.environment == .production ? relay.apnsProductionURL : relay.apnsSandboxURL
            let authentication: APNSClientConfiguration.Authentication
            if let keyPath = options.keyPath, let keyID = options.keyID, let teamID = options.teamID {
                authentication = .token(keyPEM: try String(contentsOfFile: keyPath, encoding: .utf8), keyID: keyID, teamID: teamID)
            } else {
                authentication = .certificate(
                    certificatePEM: try String(contentsOfFile: options.certificatePath!, encoding: .utf8),
                    keyPEM: try String(contentsOfFile: options.certificateKeyPath!, encoding: .utf8))
            }
            var configuration = try APNSClientConfiguration(endpoint: endpoint, authentication: authentication, caFile: relay.apnsCAFile)
            // A fixed pipe: the window does not move (the benchmark compares it with h2load's).
            configuration.connections = options.connections
            configuration.maxConnections = options.connections
            configuration.minInFlight = options.inFlight
            configuration.maxInFlight = options.inFlight
            configuration.eventLoopCount = options.loops
            EventLoopGroup.configureShared(loopCount: options.loops)
            let level = ProcessInfo.processInfo.environment["PUSHRELAY_LOG_LEVEL"].flatMap(Logger.Level.init(name:)) ?? .warning
            client = try APNSClient(configuration: configuration, logger: Logger(label: "pushrelay.apns-send", level: level))
        } catch {
            return PushRelay.fail("apns-send: \(error)")
        }
        let allAccepted = options.count == 1
            ? await sendOne(client, options)
            : await sendMany(client, options, endpoint: endpoint)
        await client.shutdown()
        return allAccepted ? 0 : 1
    }

    /// The notification numbered `index`: its own token when sending many.
    static func notification(_ options: Options, tokenBase: String, index: Int?) -> APNSNotification {
        var token = tokenBase
        if let index {
            // The base's digits with the last 8 replaced by the index, in one allocation.
            let digits = Array("0123456789abcdef".utf8)
            token = String(unsafeUninitializedCapacity: tokenBase.utf8.count) { buffer in
                _ = buffer.initialize(from: tokenBase.utf8)
                var value = UInt32(truncatingIfNeeded: index)
                for position in stride(from: buffer.count - 1, through: buffer.count - 8, by: -1) {
                    buffer[position] = digits[Int(value & 0xF)]
                    value >>= 4
                }
                return buffer.count
            }
        }
        return APNSNotification(
            deviceToken: token, topic: options.topic!, pushType: options.pushType,
            priority: options.priority ?? (options.pushType == .background ? .powerConsiderate : .immediate),
            expiration: options.expiration, collapseID: options.collapseID, payload: options.payload)
    }

    private static func randomToken() -> String {
        (0..<32).map { _ in UInt8.random(in: 0...255) }.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    private static func sendOne(_ client: APNSClient, _ options: Options) async -> Bool {
        let notification = notification(options, tokenBase: options.token ?? randomToken(), index: nil)
        let result = await client.send(notification)
        switch result {
        case let .accepted(apnsID):
            print("accepted  apns-id \(apnsID.uuidString.lowercased())  token \(notification.deviceToken)")
        case let .rejected(status, reason, timestamp):
            let since = timestamp.map { "  timestamp \(ISO8601DateFormatter().string(from: $0))" } ?? ""
            print("rejected  \(status) \(reason)\(since)  → \(describe(action(for: result)))")
        case let .failed(failure):
            print("failed  \(failure)  → \(describe(action(for: result)))")
        }
        return result.isAccepted
    }

    /// What the relay will do with such an answer, in words.
    static func describe(_ action: APNSAction) -> String {
        switch action {
        case .sent: "counted as sent"
        case let .invalidateToken(since?): "invalidate the token unless the device registered again after \(ISO8601DateFormatter().string(from: since))"
        case .invalidateToken(nil): "invalidate the token"
        case let .failPermanently(reason): "fail the delivery (\(reason)), never retry"
        case .refreshTokenAndRetry: "make a new provider token and retry"
        case let .credentialsBroken(reason): "the app's credentials are broken (\(reason)): pause its deliveries"
        case .retryWithBackoff: "retry later with backoff"
        case .retryOnNewConnection: "retry on a new connection with backoff"
        case .keepTokenRetryLater: "keep the provider token, retry later"
        case let .failMessage(why): "fail the message: \(why)"
        }
    }

    /// Sends `count` notifications in chunks, a few chunks at a time so the pipe stays full
    /// across chunk boundaries, as the push workers will.
    private static func sendMany(_ client: APNSClient, _ options: Options, endpoint: URL) async -> Bool {
        let base = options.token ?? randomToken()
        let chunkSize = 5000
        let chunks = (options.count + chunkSize - 1) / chunkSize
        let started = DispatchTime.now().uptimeNanoseconds
        let tally = await withTaskGroup(of: Tally.self) { group in
            let senders = min(4, chunks)
            for sender in 0..<senders {
                group.addTask {
                    var tally = Tally()
                    var chunk = sender
                    while chunk < chunks {
                        let range = (chunk * chunkSize)..<min(options.count, (chunk + 1) * chunkSize)
                        let results = await client.send(range.map { notification(options, tokenBase: base, index: $0) })
                        for result in results { tally.add(result) }
                        chunk += senders
                    }
                    return tally
                }
            }
            return await group.reduce(into: Tally()) { $0.merge($1) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let statistics = client.statistics
        print("""
            \(options.count) notifications to \(endpoint.absoluteString) in \(String(format: "%.3f", seconds)) s: \
            \(Int(saturating: Double(options.count) / seconds)) notifications/s
            accepted \(tally.accepted), rejected \(tally.rejected.values.reduce(0, +)), failed \(tally.failed.values.reduce(0, +)); \
            connections \(statistics.connectionsOpened), retried \(statistics.retried), \
            most in flight \(statistics.inFlightHighWater), most streams on a connection \(statistics.streamsHighWater)
            """)
        for (reason, count) in tally.rejected.sorted(by: { $0.key < $1.key }) { print("  rejected \(reason): \(count)") }
        for (failure, count) in tally.failed.sorted(by: { $0.key < $1.key }) { print("  failed \(failure): \(count)") }
        return tally.accepted == options.count
    }

    struct Tally: Sendable {
        var accepted = 0
        var rejected: [String: Int] = [:]
        var failed: [String: Int] = [:]

        mutating func add(_ result: APNSResult) {
            switch result {
            case .accepted: accepted += 1
            case let .rejected(status, reason, _): rejected["\(status) \(reason)", default: 0] += 1
            case let .failed(failure): failed["\(failure)", default: 0] += 1
            }
        }

        mutating func merge(_ other: Tally) {
            accepted += other.accepted
            rejected.merge(other.rejected, uniquingKeysWith: +)
            failed.merge(other.failed, uniquingKeysWith: +)
        }
    }
}

extension APNSResult {
    fileprivate var isAccepted: Bool {
        if case .accepted = self { true } else { false }
    }
}
