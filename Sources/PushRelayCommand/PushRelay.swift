import Foundation
import PushPipeline
import RelayCore
import WebhookClient

/// `pushrelay <command>`: one binary for every role.
@main
enum PushRelay {
    static let usage = """
        usage: pushrelay <command> [options]

        commands:
          serve      run the relay: API, push worker and scheduler (--role api|worker|scheduler|all, repeatable; default all)
          migrate    apply pending database migrations and exit
          apns-sim   run the APNs simulator (see `pushrelay apns-sim --help`)
          fcm-sim    run the FCM simulator (see `pushrelay fcm-sim --help`)
          apns-send  send notifications with the APNs client (see `pushrelay apns-send --help`)
          ctl        the admin command line, a client of a relay's API (see `pushrelay ctl --help`)
          help       this text and the configuration variables

        configuration (environment):
        \(variableList)
        """

    static func main() async {
        // A peer or a log reader that went away is an error to handle, not a reason to die.
        signal(SIGPIPE, SIG_IGN)
        var arguments = Array(CommandLine.arguments.dropFirst())
        let command = arguments.isEmpty ? "help" : arguments.removeFirst()
        let code: Int32
        switch command {
        case "serve":
            code = await ServeCommand.run(arguments: arguments)
        case "migrate":
            code = await MigrateCommand.run(arguments: arguments)
        case "apns-sim":
            code = await SimulatorCommand.runAPNs(arguments: arguments)
        case "fcm-sim":
            code = await SimulatorCommand.runFCM(arguments: arguments)
        case "apns-send":
            code = await APNSSendCommand.run(arguments: arguments)
        case "ctl":
            code = await CtlCommand.run(arguments: arguments)
        case "help", "-h", "--help":
            print(usage)
            code = 0
        default:
            StandardStream.error.write("pushrelay: unknown command \"\(command)\"\n\n\(usage)\n")
            code = 2
        }
        exit(code)
    }

    /// Prints a start-up failure plainly (it may come before logging is set up) and returns the exit code.
    static func fail(_ message: String) -> Int32 {
        StandardStream.error.write("pushrelay: \(message)\n")
        return 1
    }
}

/// The configuration variables for `pushrelay help`, names padded to the longest one (never cut).
private var variableList: String {
    let variables = RelayConfiguration.variables + PipelineConfiguration.variables + WebhookClientConfiguration.variables
    let width = variables.map(\.name.count).max() ?? 0
    return variables.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0)) \($0.meaning)" }.joined(separator: "\n")
}
