import CSystem
import Dispatch
import Foundation
import RelayCore
import Synchronization

/// An APNs look-alike: HTTP/2 over TLS on `configuration.threads` event loops, answering
/// `POST /3/device/<token>` as APNs would, acting out scripted failures, and recording
/// what it accepted (see `stats`, `deliveries(token:)`, and the control endpoint).
///
/// `start()` binds and starts the threads; `shutdown()` stops them and waits until every
/// connection is closed and every loop freed.
public final class APNSSimulator: Sendable {
    public let configuration: APNSSimulatorConfiguration
    /// The certificate served, in PEM: clients trust this.
    public let certificatePEM: String
    private let shared: SimulatorShared
    private let state = Mutex(State.idle)

    private enum State {
        case idle
        case running(loops: [SimulatorEventLoop], control: ControlServer?, stopped: DispatchGroup)
        case stopped
    }

    /// Validates the configuration, loads the JWT keys and sets up TLS (generating and
    /// writing the certificate when asked); binds nothing yet.
    public init(configuration: APNSSimulatorConfiguration, logger: Logger) throws {
        try configuration.validate()
        let tls = try TLSServerContext(certificatePath: configuration.certificatePath, keyPath: configuration.keyPath)
        if let path = configuration.writeCertificatePath {
            do {
                try tls.certificatePEM.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                throw APNSSimulatorError("cannot write the certificate to \(path): \(error)")
            }
        }
        self.configuration = configuration
        self.certificatePEM = tls.certificatePEM
        shared = SimulatorShared(
            configuration: configuration, tls: tls,
            verifier: try ProviderTokenVerifier(pemKeys: configuration.jwtKeys, acceptAnyToken: configuration.acceptAnyToken),
            recorder: SimulatorRecorder(maxRecordedTokens: configuration.maxRecordedTokens),
            logger: logger
        )
    }

    /// Binds the listeners and starts the threads.
    ///
    /// - Returns: the HTTP/2 port and the control port (if any), as bound (port 0 resolved).
    @discardableResult
    public func start() throws -> (port: Int, controlPort: Int?) {
        try state.withLock { state in
            guard case .idle = state else { throw APNSSimulatorError("the simulator was already started") }
            // A peer that hangs up mid-write must not kill the process.
            signal(SIGPIPE, SIG_IGN)
            var loops: [SimulatorEventLoop] = []
            var control: ControlServer?
            var port = configuration.listen.port
            var controlPort: Int?
            do {
                if port != 0 { try SimulatorEventLoop.checkPortFree(host: configuration.listen.host, port: port) }
                for index in 0..<configuration.threads {
                    let loop = try SimulatorEventLoop(index: index, shared: shared)
                    loops.append(loop)
                    // The first listener resolves port 0; the others join it (SO_REUSEPORT).
                    port = try loop.bind(host: configuration.listen.host, port: port)
                }
                if let endpoint = configuration.control {
                    let server = try ControlServer(recorder: shared.recorder, rates: shared.rates)
                    control = server
                    controlPort = try server.bind(host: endpoint.host, port: endpoint.port)
                }
            } catch {
                // Never started: running a stopped loop just frees it.
                for loop in loops { loop.stop(); loop.run() }
                if let control { control.stop(); control.run() }
                throw error
            }
            let stopped = DispatchGroup()
            for loop in loops {
                startThread(name: "apns-sim-\(loop.index)", group: stopped) { loop.run() }
            }
            if let control {
                startThread(name: "apns-sim-control", group: stopped) { control.run() }
            }
            state = .running(loops: loops, control: control, stopped: stopped)
            shared.logger.info("APNs simulator listening", [
                "port": String(port), "control_port": controlPort.map(String.init) ?? "none",
                "threads": String(configuration.threads),
                "auth": shared.verifier.acceptAnyToken ? "any" : (shared.verifier.requiresToken ? "token" : "certificate"),
            ])
            return (port, controlPort)
        }
    }

    private func startThread(name: String, group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        let thread = Thread {
            body()
            group.leave()
        }
        thread.name = name
        thread.start()
    }

    /// Stops every loop, closes every connection, and returns once all threads are done.
    public func shutdown() async {
        let running: (loops: [SimulatorEventLoop], control: ControlServer?, stopped: DispatchGroup)? = state.withLock { state in
            defer { state = .stopped }
            guard case .running(let loops, let control, let stopped) = state else { return nil }
            return (loops, control, stopped)
        }
        guard let running else { return }
        for loop in running.loops { loop.stop() }
        running.control?.stop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            running.stopped.notify(queue: .global()) { continuation.resume() }
        }
        shared.logger.info("APNs simulator stopped")
    }

    /// The counters so far.
    public var stats: APNSSimulatorStats { shared.recorder.stats }

    /// The last accepted notification per device token (or just `token`'s).
    public func deliveries(token: String? = nil) -> [APNSDelivery] {
        shared.recorder.deliveries(token: token)
    }

    /// Clears the counters and the deliveries.
    public func reset() {
        shared.recorder.reset()
    }

    /// The 429/500/503 rates in force (the configuration's, until changed).
    public var rates: FailureRates { shared.rates.current }

    /// Changes the 429/500/503 rates while running (as `PUT /rates` does); every loop uses
    /// them from its next request.
    ///
    /// - Precondition: each rate in 0...1, their sum at most 1.
    public func setRates(_ rates: FailureRates) {
        precondition([rates.rate429, rates.rate500, rates.rate503].allSatisfy { (0...1).contains($0) }
            && rates.rate429 + rates.rate500 + rates.rate503 <= 1, "rates out of range")
        shared.rates.set(rates)
    }
}
