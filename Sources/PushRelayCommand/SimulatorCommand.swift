import APNSSimulator
import EventLoops
import Foundation
import RelayCore
import ServiceLifecycle

/// `pushrelay apns-sim`: the APNs simulator, until SIGTERM or SIGINT (a second one: at once).
enum SimulatorCommand {
    static func run(arguments: [String]) async -> Int32 {
        let configuration: APNSSimulatorConfiguration
        do {
            configuration = try APNSSimulatorConfiguration.parse(arguments: arguments)
        } catch let error as APNSSimulatorError where error.isHelpRequest {
            print(error.message)
            return 0
        } catch {
            return PushRelay.fail("apns-sim: \(error)")
        }
        let level = ProcessInfo.processInfo.environment["PUSHRELAY_LOG_LEVEL"].flatMap(Logger.Level.init(name:)) ?? .info
        let logger = Logger(label: "pushrelay.apns-sim", level: level)
        EventLoopGroup.configureShared(loopCount: configuration.threads)
        let simulator: APNSSimulator
        do {
            simulator = try APNSSimulator(configuration: configuration, logger: logger)
            try simulator.start()
        } catch {
            return PushRelay.fail("apns-sim: \(error)")
        }
        let code = await ServiceGroup(services: [SimulatorService(simulator: simulator)], logger: logger).run()
        logger.notice("stopped", code == 0 ? [:] : ["exit_code": String(code)])
        return code
    }
}
