import APNSSimulator
import Foundation
import RelayCrypto

extension FCMSimulatorConfiguration {
    public static let usage = """
        usage: pushrelay fcm-sim [flags]

        An FCM HTTP v1 look-alike: the OAuth2 token endpoint (POST /token) and
        POST /v1/projects/{project_id}/messages:send over TLS, HTTP/2 or HTTP/1.1 (by ALPN).

          --service-account PATH    trust this service-account key file (repeatable)
          --demo-account PATH       trust a demo account kept in PATH, made (with a fresh RSA key and
                                    token_uri https://<listen>/token) when PATH does not exist yet;
                                    for the simulator only, never a real credential
          --token-lifetime SECONDS  expires_in of the access tokens issued (default 3600)
          --retry-after SECONDS     Retry-After of scripted 429/503 answers (default 1; 0 for none)

        Every flag of `pushrelay apns-sim` works too (--listen, --control, --write-cert, --threads,
        --unregistered-prefix: 404 UNREGISTERED, --bad-token-prefix: 400 INVALID_ARGUMENT about the
        token, --rate-429/--rate-500/--rate-503, --latency-ms, …). The control endpoint adds
        GET/PUT /token-endpoint ({"down":true} answers 503) and POST /revoke-tokens.
        """

    /// Reads `pushrelay fcm-sim` flags: its own, the rest as `pushrelay apns-sim`'s.
    public static func parse(arguments: [String]) throws -> FCMSimulatorConfiguration {
        var accounts: [FCMServiceAccount] = []
        var demoPath: String?
        var lifetime = 3600
        var retryAfter: Int? = 1
        var rest: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            func value() throws -> String {
                if parts.count == 2 { return parts[1] }
                guard let next = remaining.popFirst() else { throw APNSSimulatorError("\(parts[0]) needs a value") }
                return next
            }
            switch parts[0] {
            case "--help", "-h": throw APNSSimulatorError(usage, isHelpRequest: true)
            case "--service-account":
                let path = try value()
                guard let bytes = FileManager.default.contents(atPath: path) else { throw APNSSimulatorError("cannot read \(path)") }
                do {
                    accounts.append(try FCMServiceAccount.parse(Array(bytes)))
                } catch {
                    throw APNSSimulatorError("\(path): \(error)")
                }
            case "--demo-account": demoPath = try value()
            case "--token-lifetime":
                guard let seconds = Int(try value()), seconds >= 0 else { throw APNSSimulatorError("--token-lifetime: not a number of seconds") }
                lifetime = seconds
            case "--retry-after":
                guard let seconds = Int(try value()), seconds >= 0 else { throw APNSSimulatorError("--retry-after: not a number of seconds") }
                retryAfter = seconds == 0 ? nil : seconds
            default:
                rest.append(argument)
                if parts.count == 1, argument.hasPrefix("--"), let next = remaining.first, !next.hasPrefix("--") {
                    rest.append(next)
                    remaining = remaining.dropFirst()
                }
            }
        }
        var server: APNSSimulatorConfiguration
        do {
            server = try APNSSimulatorConfiguration.parse(arguments: rest)
        } catch let error as APNSSimulatorError where !error.isHelpRequest {
            throw APNSSimulatorError(error.message.replacingOccurrences(of: "apns-sim", with: "fcm-sim"))
        }
        if server.listen.port == 2197, !rest.contains(where: { $0.hasPrefix("--listen") }) {
            server.listen.port = 2297  // beside apns-sim's default
        }
        if let demoPath { accounts.append(try demoAccount(at: demoPath, listen: server.listen)) }
        guard !accounts.isEmpty else { throw APNSSimulatorError("give --service-account PATH or --demo-account PATH\n\(usage)") }
        var configuration = FCMSimulatorConfiguration(server: server, serviceAccounts: accounts)
        configuration.accessTokenLifetime = lifetime
        configuration.retryAfterSeconds = retryAfter
        return configuration
    }

    /// The demo account kept at `path`, made there first when missing (mode 0600).
    static func demoAccount(at path: String, listen: APNSSimulatorConfiguration.Endpoint) throws -> FCMServiceAccount {
        if let bytes = FileManager.default.contents(atPath: path) {
            do {
                return try FCMServiceAccount.parse(Array(bytes))
            } catch {
                throw APNSSimulatorError("\(path): \(error)")
            }
        }
        let account = FCMServiceAccount(
            projectID: "pushrelay-demo", clientEmail: "demo-sender@pushrelay-demo.iam.gserviceaccount.com",
            privateKeyID: "demo-key-for-fcm-sim-only", privateKeyPEM: try RS256Signer.generateKeyPEM(),
            tokenURI: "https://\(listen)/token", clientID: "0")
        guard FileManager.default.createFile(atPath: path, contents: Data(account.json), attributes: [.posixPermissions: 0o600]) else {
            throw APNSSimulatorError("cannot write the demo account to \(path)")
        }
        return account
    }
}
