import CSystem
import EventLoops
import Foundation
import RelayCore
import Synchronization

/// An APNs look-alike: HTTP/2 over TLS on `configuration.threads` listeners spread over
/// the loops of an `EventLoopGroup`, answering
/// `POST /3/device/<token>` as APNs would, acting out scripted failures, and recording
/// what it accepted (see `stats`, `deliveries(token:)`, and the control endpoint).
///
/// `start()` binds and starts the listeners; `shutdown()` stops them and waits until every
/// connection is closed and every listener freed (the loops run on).
public final class APNSSimulator: Sendable {
    public let configuration: APNSSimulatorConfiguration
    /// The certificate served, in PEM: clients trust this.
    public let certificatePEM: String
    /// The broadcast channels created so far (shared by every listener).
    public let channels: ChannelRegistry
    private let shared: SimulatorShared
    private let group: EventLoopGroup
    private let state = Mutex(State.idle)
    private let authDescription: String
    private let controlRoutes: ControlServer.Routes?

    private enum State {
        case idle
        case running(listeners: [LoopBound<SimulatorListener>], control: LoopBound<ControlServer>?)
        case stopped
    }

    /// Validates the configuration, loads the JWT keys and sets up TLS (generating and
    /// writing the certificate when asked); binds nothing yet.
    ///
    /// - Parameter group: the event loops the listeners run on (the process's by default).
    public convenience init(configuration: APNSSimulatorConfiguration, logger: Logger, group: EventLoopGroup = .shared) throws {
        let verifier = try ProviderTokenVerifier(pemKeys: configuration.jwtKeys, acceptAnyToken: configuration.acceptAnyToken)
        let channels = ChannelRegistry()
        try self.init(
            configuration: configuration, logger: logger, group: group, serviceName: "APNs", channels: channels,
            requiresToken: verifier.requiresToken,
            authDescription: verifier.acceptAnyToken ? "any" : (verifier.requiresToken ? "token" : "certificate"),
            makeService: { index in
                APNSRequestHandler(verifier: verifier, behaviour: ScriptedBehaviour(
                    unregisteredPrefix: configuration.unregisteredPrefix, badTokenPrefix: configuration.badTokenPrefix,
                    rate429: configuration.rate429, rate500: configuration.rate500, rate503: configuration.rate503,
                    seed: configuration.seed &+ UInt64(index)),
                    tokenKinds: TokenKinds(prefixes: configuration.tokenKindPrefixes), channels: channels)
            })
    }

    /// The same server answering as another push service does (the FCM simulator).
    ///
    /// - Parameters:
    ///   - serviceName: for log lines.
    ///   - requiresToken: one stream per connection until a request carried a valid provider token (APNs).
    ///   - authDescription: how requests are authorized, for the start-up log line.
    ///   - makeService: each listener's request handler, given its index.
    ///   - speaksHTTP1: also answer clients that offer only `http/1.1` in ALPN (FCM's endpoints do).
    ///   - controlRoutes: the control endpoint's routes besides the shared ones (`ControlRoute`).
    package init(
        configuration: APNSSimulatorConfiguration, logger: Logger, group: EventLoopGroup = .shared, serviceName: String,
        channels: ChannelRegistry = ChannelRegistry(), requiresToken: Bool, authDescription: String, makeService: @escaping @Sendable (Int) -> any SimulatedService,
        speaksHTTP1: Bool = false, controlRoutes: ControlServer.Routes? = nil
    ) throws {
        try configuration.validate()
        let tls = try TLSServerContext(certificatePath: configuration.certificatePath, keyPath: configuration.keyPath,
                                       speaksHTTP1: speaksHTTP1)
        if let path = configuration.writeCertificatePath {
            do {
                try tls.certificatePEM.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                throw APNSSimulatorError("cannot write the certificate to \(path): \(error)")
            }
        }
        self.configuration = configuration
        self.group = group
        self.certificatePEM = tls.certificatePEM
        self.authDescription = authDescription
        self.controlRoutes = controlRoutes
        self.channels = channels
        shared = SimulatorShared(
            configuration: configuration, tls: tls, serviceName: serviceName, requiresToken: requiresToken,
            makeService: makeService, recorder: SimulatorRecorder(maxRecordedTokens: configuration.maxRecordedTokens),
            logger: logger
        )
    }

    /// Binds the listeners and starts them on their loops.
    ///
    /// - Returns: the HTTP/2 port and the control port (if any), as bound (port 0 resolved).
    @discardableResult
    public func start() throws -> (port: Int, controlPort: Int?) {
        try state.withLock { state in
            guard case .idle = state else { throw APNSSimulatorError("the simulator was already started") }
            var listeners: [LoopBound<SimulatorListener>] = []
            var control: LoopBound<ControlServer>?
            var port = configuration.listen.port
            var controlPort: Int?
            do {
                if port != 0 { try SimulatorListener.checkPortFree(host: configuration.listen.host, port: port) }
                for index in 0..<configuration.threads {
                    let loop = group.next()
                    let listener = try SimulatorListener(index: index, shared: shared, loop: loop)
                    do {
                        // The first listener resolves port 0; the others join it (SO_REUSEPORT).
                        port = try listener.bind(host: configuration.listen.host, port: port)
                    } catch {
                        listener.close()
                        throw error
                    }
                    listeners.append(LoopBound(handingOver: listener, to: loop))
                }
                if let endpoint = configuration.control {
                    let loop = group.next()
                    let server = try ControlServer(recorder: shared.recorder, rates: shared.rates, network: shared.network,
                                                   routes: controlRoutes, loop: loop)
                    do {
                        controlPort = try server.bind(host: endpoint.host, port: endpoint.port)
                    } catch {
                        server.close()
                        throw error
                    }
                    control = LoopBound(handingOver: server, to: loop)
                }
            } catch {
                // Never started: each frees itself on its loop.
                for listener in listeners { listener.execute { $0.close() } }
                throw error
            }
            for listener in listeners { listener.execute { $0.start() } }
            control?.execute { $0.start() }
            state = .running(listeners: listeners, control: control)
            shared.logger.info("\(shared.serviceName) simulator listening", [
                "port": String(port), "control_port": controlPort.map(String.init) ?? "none",
                "threads": String(configuration.threads),
                "auth": authDescription,
            ])
            return (port, controlPort)
        }
    }

    /// Stops every listener, closes every connection, and returns once all are freed.
    public func shutdown() async {
        let running: (listeners: [LoopBound<SimulatorListener>], control: LoopBound<ControlServer>?)? = state.withLock { state in
            defer { state = .stopped }
            guard case .running(let listeners, let control) = state else { return nil }
            return (listeners, control)
        }
        guard let running else { return }
        for listener in running.listeners {
            try? await listener.loop.submit { listener.value.close() }
        }
        if let control = running.control {
            try? await control.loop.submit { control.value.close() }
        }
        shared.logger.info("\(shared.serviceName) simulator stopped")
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

    /// The latency, jitter and bandwidth in force (the configuration's, until changed).
    public var network: NetworkShape { shared.network.current }

    /// Changes them while running (as `PUT /network` does): answers to requests completed
    /// from then on are delayed so, and each connection's cap changes with its next bytes.
    ///
    /// - Precondition: every value at least 0.
    public func setNetwork(_ network: NetworkShape) {
        precondition(network.latencyMilliseconds >= 0 && network.jitterMilliseconds >= 0
            && network.bandwidthBytesPerSecond >= 0, "network values out of range")
        shared.network.set(network)
    }
}
