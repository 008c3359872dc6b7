import APNSSimulator
import EventLoops
import FCMSimulator
import Foundation
import RelayCore
import ServiceLifecycle

/// `pushrelay apns-sim` and `pushrelay fcm-sim`: a simulator, until SIGTERM or SIGINT (a second one: at once).
enum SimulatorCommand {
    static func runAPNs(arguments: [String]) async -> Int32 {
        await run("apns-sim", arguments: arguments, parse: APNSSimulatorConfiguration.parse, threads: \.threads) { configuration, logger in
            let simulator = try APNSSimulator(configuration: configuration, logger: logger)
            try simulator.start()
            return simulator.shutdown
        }
    }

    static func runFCM(arguments: [String]) async -> Int32 {
        await run("fcm-sim", arguments: arguments, parse: FCMSimulatorConfiguration.parse, threads: \.server.threads) { configuration, logger in
            let simulator = try FCMSimulator(configuration: configuration, logger: logger)
            try simulator.start()
            return simulator.shutdown
        }
    }

    /// Parses, starts the simulator on the shared loops, and runs until shutdown.
    ///
    /// - Parameter start: starts the simulator and returns how to stop it.
    private static func run<Configuration>(
        _ name: String, arguments: [String], parse: ([String]) throws -> Configuration, threads: KeyPath<Configuration, Int>,
        start: (Configuration, Logger) throws -> @Sendable () async -> Void
    ) async -> Int32 {
        let configuration: Configuration
        do {
            configuration = try parse(arguments)
        } catch let error as APNSSimulatorError where error.isHelpRequest {
            print(error.message)
            return 0
        } catch {
            return PushRelay.fail("\(name): \(error)")
        }
        let level = ProcessInfo.processInfo.environment["PUSHRELAY_LOG_LEVEL"].flatMap(Logger.Level.init(name:)) ?? .info
        let logger = Logger(label: "pushrelay.\(name)", level: level)
        EventLoopGroup.configureShared(loopCount: configuration[keyPath: threads])
        let stop: @Sendable () async -> Void
        do {
            stop = try start(configuration, logger)
        } catch {
            return PushRelay.fail("\(name): \(error)")
        }
        let code = await ServiceGroup(services: [SimulatorService(stop: stop)], logger: logger).run()
        logger.notice("stopped", code == 0 ? [:] : ["exit_code": String(code)])
        return code
    }
}
