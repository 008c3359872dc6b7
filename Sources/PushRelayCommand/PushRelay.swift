import Foundation
import RelayCore

/// `pushrelay <command>`: one binary for every role.
@main
enum PushRelay {
    static let usage = """
        usage: pushrelay <command> [options]

        commands:
          serve      run the relay (API; later also workers and scheduler)
          migrate    apply pending database migrations and exit
          apns-sim   run the APNs simulator (see `pushrelay apns-sim --help`)
          apns-send  send notifications with the APNs client (see `pushrelay apns-send --help`)
          help       this text and the configuration variables

        configuration (environment):
        \(RelayConfiguration.variables.map { "  \($0.name.padding(toLength: 30, withPad: " ", startingAt: 0)) \($0.meaning)" }.joined(separator: "\n"))
        """

    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let command = arguments.isEmpty ? "help" : arguments.removeFirst()
        let code: Int32
        switch command {
        case "serve":
            code = await ServeCommand.run(arguments: arguments)
        case "migrate":
            code = await MigrateCommand.run(arguments: arguments)
        case "apns-sim":
            code = await SimulatorCommand.run(arguments: arguments)
        case "apns-send":
            code = await APNSSendCommand.run(arguments: arguments)
        case "help", "-h", "--help":
            print(usage)
            code = 0
        default:
            FileHandle.standardError.write(Data("pushrelay: unknown command \"\(command)\"\n\n\(usage)\n".utf8))
            code = 2
        }
        exit(code)
    }

    /// Prints a start-up failure plainly (it may come before logging is set up) and returns the exit code.
    static func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("pushrelay: \(message)\n".utf8))
        return 1
    }
}
