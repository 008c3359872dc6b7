import APNSSimulator
import Foundation
import PushPipeline
import TestSupport

/// An APNs simulator on 127.0.0.1 (port 0) that trusts a P-256 token key made for the test,
/// and a pipeline configuration that sends to it over TLS (its certificate as the CA).
public struct TestAPNs: Sendable {
    public let simulator: APNSSimulator
    /// The token key in PEM, as Apple's .p8 files hold it.
    public let keyPEM: String
    /// Sends to the simulator, for production and sandbox alike.
    public let pipeline: PipelineConfiguration

    /// Starts the simulator; the key and the CA file go to `directory`.
    ///
    /// - Parameter simulate: tunes the simulator after the key and the address are set.
    public static func start(keyID: String, in directory: URL,
                             simulate: (inout APNSSimulatorConfiguration) -> Void = { _ in }) async throws -> TestAPNs {
        let keyPEM = try await makeKey(in: directory)
        var configuration = APNSSimulatorConfiguration()
        configuration.listen = .init(host: "127.0.0.1", port: 0)
        configuration.jwtKeys = [keyID: keyPEM]
        configuration.threads = 1
        simulate(&configuration)
        let simulator = try APNSSimulator(configuration: configuration, logger: TestDatabase.quietLogger)
        let port = try simulator.start().port
        let caFile = directory.appendingPathComponent("simulator.pem").path
        try simulator.certificatePEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        var pipeline = PipelineConfiguration()
        pipeline.productionURL = URL(string: "https://127.0.0.1:\(port)")!
        pipeline.sandboxURL = pipeline.productionURL
        pipeline.caFile = caFile
        return TestAPNs(simulator: simulator, keyPEM: keyPEM, pipeline: pipeline)
    }

    /// A P-256 key in PEM, written to `directory`/AuthKey.p8.
    public static func makeKey(in directory: URL) async throws -> String {
        let path = directory.appendingPathComponent("AuthKey.p8").path
        try await TestProcess.run("/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path])
        return try String(contentsOfFile: path, encoding: .utf8)
    }
}
