import Foundation
import RelayCore

/// `pushrelay ctl`: the admin command line, a client of a relay's REST API.
enum CtlCommand {
    static let usage = """
        usage: pushrelay ctl [--url URL] [--admin-token TOKEN] [--app-key KEY --app-secret SECRET] [--json] <command>

        commands:
          apps create --name NAME              create an app (prints its master secret, once)
          apps list | show KEY | delete KEY    apps and their credentials
          apps rotate-secret KEY               a new master secret; the old one stops working
          apns set KEY --topic T --p8 FILE --key-id ID --team-id ID [--environment sandbox|production]
          apns set KEY --topic T --cert FILE --key FILE | --p12 FILE [--password P] [--environment …]
                                               without --environment: both environments
          devices register TOKEN [--platform ios|android] [--environment production|sandbox] [--alias A] [--tag T,…]
          devices show REGISTRATION_ID
          devices import FILE [--format csv|ndjson] [--batch LINES]
          push send (--all | --alias A,… | --tag T,… | --rid R,…) --alert TEXT [--title T]
                    [--badge N|+N] [--sound S] [--extra K=V …] [--environment sandbox]
                    [--cid CID] [--no-wait] [--timeout SECONDS]
          report MSG_ID                        a message's delivery funnel
          stats [--since T] [--until T] [--bucket minute|hour|day] [--app-key KEY]

        The relay: --url or PUSHRELAY_URL (default http://127.0.0.1:8080). Admin commands take
        --admin-token or PUSHRELAY_ADMIN_TOKEN; devices and push take the app's credentials,
        --app-key/--app-secret or PUSHRELAY_APP_KEY/PUSHRELAY_APP_SECRET.
        Exit codes: 0 done, 1 refused by the relay, 2 bad command line, 3 relay unreachable,
        4 credentials refused, 5 not found, 6 timed out following a push.
        """

    static func run(arguments: [String]) async -> Int32 {
        do {
            let parsed = try CtlArguments(arguments)
            if parsed.flag("help") || parsed.positionals.isEmpty {
                StandardStream.output.write(usage + "\n")
                return parsed.positionals.isEmpty && !parsed.flag("help") ? 2 : 0
            }
            try await dispatch(parsed)
            return 0
        } catch let error as CtlError {
            StandardStream.error.write("pushrelay ctl: \(error.description)\n")
            return error.exitCode
        } catch {
            StandardStream.error.write("pushrelay ctl: \(error)\n")
            return 1
        }
    }

    private static func dispatch(_ arguments: CtlArguments) async throws {
        let environment = ProcessInfo.processInfo.environment
        let client = CtlClient(
            baseURL: arguments.value("url") ?? environment["PUSHRELAY_URL"] ?? "http://127.0.0.1:8080",
            adminToken: arguments.value("admin-token") ?? environment["PUSHRELAY_ADMIN_TOKEN"],
            appKey: arguments.value("app-key") ?? environment["PUSHRELAY_APP_KEY"],
            appSecret: arguments.value("app-secret") ?? environment["PUSHRELAY_APP_SECRET"])
        let output = CtlOutput(json: arguments.flag("json"))
        let words = arguments.positionals
        let rest = CtlArguments(positionals: Array(words.dropFirst(2)), options: arguments.options)
        switch (words[0], words.count > 1 ? words[1] : "") {
        case ("apps", let verb): try await CtlApps(client: client, output: output).run(verb, rest)
        case ("apns", "set"): try await CtlApps(client: client, output: output).setAPNs(rest)
        case ("devices", let verb): try await CtlDevices(client: client, output: output).run(verb, rest)
        case ("push", "send"): try await CtlPush(client: client, output: output).send(rest)
        case ("report", _):
            try await CtlReports(client: client, output: output).report(CtlArguments(positionals: Array(words.dropFirst()), options: arguments.options))
        case ("stats", _): try await CtlReports(client: client, output: output).stats(arguments)
        default: throw CtlError.usage("unknown command \"\(words.prefix(2).joined(separator: " "))\"; see pushrelay ctl --help")
        }
    }
}

extension CtlArguments {
    /// Arguments already split (a subcommand's share of the command line).
    init(positionals: [String], options: [String: [String]]) {
        self.positionals = positionals
        self.options = options
    }
}
