import CSystem
import EventLoops
import Foundation
import RelayCore

/// What every listener of one simulator shares; immutable or thread-safe.
final class SimulatorShared: Sendable {
    let configuration: APNSSimulatorConfiguration
    let tls: TLSServerContext
    /// "APNs", "FCM": in log lines.
    let serviceName: String
    /// Whether a connection takes one stream until a request carried a valid provider token (APNs).
    let requiresToken: Bool
    /// Makes each listener's `SimulatedService`, given the listener's index.
    let makeService: @Sendable (Int) -> any SimulatedService
    let recorder: SimulatorRecorder
    let logger: Logger
    /// The 429/500/503 rates, which the control endpoint may change while running.
    let rates: LiveSetting<FailureRates>
    /// The latency, jitter and bandwidth, which the control endpoint may change too.
    let network: LiveSetting<NetworkShape>
    /// Uptime (ns) until which TLS handshakes are refused (`refuseTLSSeconds`).
    let refuseTLSUntil: UInt64

    init(
        configuration: APNSSimulatorConfiguration, tls: TLSServerContext, serviceName: String, requiresToken: Bool,
        makeService: @escaping @Sendable (Int) -> any SimulatedService, recorder: SimulatorRecorder, logger: Logger
    ) {
        self.configuration = configuration
        self.tls = tls
        self.serviceName = serviceName
        self.requiresToken = requiresToken
        self.makeService = makeService
        self.recorder = recorder
        self.logger = logger
        rates = LiveSetting(FailureRates(
            rate429: configuration.rate429, rate500: configuration.rate500, rate503: configuration.rate503))
        network = LiveSetting(configuration.network)
        refuseTLSUntil = DispatchTime.now().uptimeNanoseconds + UInt64(configuration.refuseTLSSeconds) * 1_000_000_000
    }
}

/// One SO_REUSEPORT listener on one loop of the simulator's `EventLoopGroup`, and the
/// connections it accepted.
///
/// Thread rule: built and bound on the starting thread with its listener not accepting
/// yet, then handed to its loop as a `LoopBound`, whose thread alone touches it from
/// `start()` on; it frees everything of its own in `close()`, and the loop runs on for others.
final class SimulatorListener {
    let index: Int
    let shared: SimulatorShared
    let loop: EventLoop
    let base: OpaquePointer
    let sessionCallbacks: OpaquePointer
    /// Options of every session: PINGs acknowledged by the connection (after the latency).
    let sessionOptions: OpaquePointer
    var handler: any SimulatedService
    /// The `shared.rates` generation the handler's behaviour was last given.
    private var ratesGeneration = 0
    /// Makes the `apns-id` of requests that came without one.
    var idRandom: SplitMix64
    /// Draws the jitter of each answer's delay (seeded: a test can repeat a run).
    var jitterRandom: SplitMix64
    /// `shared.network` as of `networkGeneration`, which connections compare with theirs.
    private(set) var network: NetworkShape
    private(set) var networkGeneration = 0
    private var listener: OpaquePointer?
    private var connections: [ObjectIdentifier: SimulatorConnection] = [:]

    init(index: Int, shared: SimulatorShared, loop: EventLoop) throws {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw APNSSimulatorError("nghttp2_session_callbacks_new failed")
        }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, simulatorOnBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, simulatorOnHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, simulatorOnDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, simulatorOnFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, simulatorOnStreamClose)
        self.index = index
        self.shared = shared
        self.loop = loop
        self.base = loop.base
        self.sessionCallbacks = callbacks
        // PINGs are acknowledged by the connection, after the network's latency.
        var options: OpaquePointer?
        guard nghttp2_option_new(&options) == 0, let options else {
            nghttp2_session_callbacks_del(callbacks)
            throw APNSSimulatorError("nghttp2_option_new failed")
        }
        nghttp2_option_set_no_auto_ping_ack(options, 1)
        self.sessionOptions = options
        let configuration = shared.configuration
        self.handler = shared.makeService(index)
        var system = SystemRandomNumberGenerator()
        self.idRandom = SplitMix64(seed: system.next())
        self.jitterRandom = SplitMix64(seed: configuration.seed &+ UInt64(index) &+ 0x7177_E800)
        self.network = configuration.network
    }

    /// Takes the control endpoint's latest network shape, if it changed.
    func refreshNetwork() {
        let generation = shared.network.generation
        guard generation != networkGeneration else { return }
        networkGeneration = generation
        network = shared.network.current
    }

    /// Gives the handler the control endpoint's latest rates, if they changed.
    func refreshRates() {
        let generation = shared.rates.generation
        guard generation != ratesGeneration else { return }
        ratesGeneration = generation
        handler.setRates(shared.rates.current)
    }

    /// Throws when something already listens on `host:port`.
    ///
    /// The loops' listeners share their port through SO_REUSEPORT, which would just as
    /// happily let a second simulator (another `make run`) share it and take half of the
    /// connections. A plain bind, without that option, fails while anyone listens there.
    static func checkPortFree(host: String, port: Int) throws {
        try withListenAddress(host: host, port: port) { address in
            let probe = socket(address.ai_family, Int32(SOCK_STREAM.rawValue), 0)
            guard probe >= 0 else { throw APNSSimulatorError("socket: \(String(cString: strerror(errno)))") }
            defer { Foundation.close(probe) }
            var on: Int32 = 1
            // SO_REUSEADDR: a port left in TIME_WAIT by an earlier run is free.
            _ = setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            if Foundation.bind(probe, address.ai_addr, address.ai_addrlen) != 0 {
                throw APNSSimulatorError("cannot listen on \(host):\(port): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Binds the listener, not accepting yet; returns the port bound (the chosen one for port 0).
    func bind(host: String, port: Int) throws -> Int {
        let listener = try bindListener(
            base: base, host: host, port: port, reusePort: true, callback: simulatorAccept,
            context: Unmanaged.passUnretained(self).toOpaque())
        self.listener = listener
        guard let port = boundPort(of: evconnlistener_get_fd(listener)) else {
            throw APNSSimulatorError("cannot read the port bound on \(host)")
        }
        return port
    }

    /// Starts accepting; on the loop's thread.
    func start() {
        if let listener { evconnlistener_enable(listener) }
    }

    /// Closes every connection and frees the listener; on the loop's thread, or on the
    /// starting thread for a listener that never started.
    func close() {
        for connection in Array(connections.values) { connection.close() }
        if let listener { evconnlistener_free(listener) }
        listener = nil
        nghttp2_session_callbacks_del(sessionCallbacks)
        nghttp2_option_del(sessionOptions)
    }

    /// A TCP connection arrived: wrap it in TLS (server side) and wait for the handshake.
    func accept(socket: Int32) {
        if DispatchTime.now().uptimeNanoseconds < shared.refuseTLSUntil {
            // The client's handshake meets a closed connection.
            Foundation.close(socket)
            shared.recorder.handshakeRefused()
            return
        }
        guard shared.recorder.connectionOpened(limit: shared.configuration.maxConnections) else {
            Foundation.close(socket)
            shared.logger.debug("connection refused: too many open", ["loop": String(index)])
            return
        }
        _ = CSystem_set_tcp_nodelay(socket)
        guard let ssl = SSL_new(shared.tls.context) else {
            Foundation.close(socket)
            shared.recorder.connectionClosed()
            return
        }
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue | BEV_OPT_DEFER_CALLBACKS.rawValue)
        guard let bufferEvent = bufferevent_openssl_socket_new(base, socket, ssl, BUFFEREVENT_SSL_ACCEPTING, options) else {
            SSL_free(ssl)
            Foundation.close(socket)
            shared.recorder.connectionClosed()
            return
        }
        bufferevent_openssl_set_allow_dirty_shutdown(bufferEvent, 1)
        let connection = SimulatorConnection(listener: self, bufferEvent: bufferEvent)
        connections[ObjectIdentifier(connection)] = connection
        shared.logger.debug("connection accepted", ["loop": String(index), "open": String(connections.count)])
        connection.start()
    }

    func connectionClosed(_ connection: SimulatorConnection) {
        connections.removeValue(forKey: ObjectIdentifier(connection))
        shared.recorder.connectionClosed()
        shared.logger.debug("connection closed", ["loop": String(index), "open": String(connections.count)])
    }
}

private func simulatorAccept(
    _: OpaquePointer?, _ socket: Int32, _: UnsafeMutablePointer<sockaddr>?, _: Int32, _ context: UnsafeMutableRawPointer?
) {
    Unmanaged<SimulatorListener>.fromOpaque(context!).takeUnretainedValue().accept(socket: socket)
}
