import APNSSimulator
import RelayCore

/// `pushrelay apns-sim`: the APNs simulator, until SIGTERM or SIGINT.
enum SimulatorCommand {
    static func run(arguments: [String]) async -> Int32 {
        PushRelay.fail("apns-sim is not built yet")
    }
}
