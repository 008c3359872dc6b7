import CSystem
import EventLoops
import Foundation
import RelayCore
import Synchronization

/// An HTTP/1.1 server on libevent's evhttp: `configuration.threads` listeners spread over
/// the loops of an `EventLoopGroup`, all accepting on the same port through SO_REUSEPORT,
/// handlers run as Swift tasks off the loops.
public final class HTTPServer: Sendable {
    /// A listener, confined to its loop, and the signal it gives once freed.
    private struct Running {
        let listener: LoopBound<HTTPListener>
        let exited: ExitSignal
    }

    private enum State {
        case idle
        case running([Running])
        case stopping([Running])
        case stopped
    }

    private let context: ServerContext
    private let group: EventLoopGroup
    private let state = Mutex<State>(.idle)

    /// - Parameter group: the event loops the listeners run on (the process's by default).
    public init(
        configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger,
        group: EventLoopGroup = .shared
    ) {
        context = ServerContext(configuration: configuration, responder: responder, logger: logger)
        self.group = group
    }

    /// Binds, starts the listeners on their loops and returns the bound port.
    ///
    /// - Throws: `HTTPServerError.addressInUse` when another socket holds the address,
    ///   other `HTTPServerError`s when the address is invalid or libevent fails.
    public func start() throws -> Int {
        return try state.withLock { state throws(HTTPServerError) -> Int in
            guard case .idle = state else { throw .alreadyStarted }
            if case .failure(let error)? = context.tls { throw error }
            let configuration = context.configuration
            guard var address = SocketAddress(host: configuration.host, port: configuration.port) else {
                throw .invalidAddress(configuration.host)
            }
            if configuration.port != 0, address.isInUse() {
                throw .addressInUse(host: configuration.host, port: configuration.port)
            }
            var listeners: [Running] = []
            var port = configuration.port
            do throws(HTTPServerError) {
                for _ in 0..<max(1, configuration.threads) {
                    let loop = group.next()
                    let listener = try HTTPListener(context: context, address: address, loop: loop)
                    let (bound, exited) = (listener.port, listener.exited)
                    listeners.append(Running(listener: LoopBound(handingOver: listener, to: loop), exited: exited))
                    if port == 0 {
                        // Every further listener binds the port the kernel picked for the first.
                        guard let bound else { throw .setupFailed("getsockname") }
                        port = bound
                        address = SocketAddress(host: configuration.host, port: port) ?? address
                    }
                }
            } catch {
                for running in listeners { running.listener.execute { $0.discard() } }
                throw error
            }
            for running in listeners { running.listener.execute { $0.start() } }
            state = .running(listeners)
            context.logger.info("http server listening", ["host": configuration.host, "port": String(port),
                                                          "threads": String(listeners.count)])
            return port
        }
    }

    /// Connections open right now, over all loops (refused ones are never counted).
    public var openConnections: Int { context.admission.withLock { $0.total } }

    /// Bytes read from clients that libevent has not consumed yet, over all connections.
    public var bufferedInputBytes: Int { context.bufferedInput.current }

    /// Bytes of answers the clients' sockets have not taken yet, over all connections.
    public var bufferedOutputBytes: Int { context.bufferedOutput.current }

    /// Stops accepting connections, lets requests in flight finish and their replies be
    /// written, then frees the listeners and waits until each is done (the loops run on).
    public func shutdown() async {
        let listeners: [Running] = state.withLock { state in
            switch state {
            case .running(let listeners):
                state = .stopping(listeners)
                for running in listeners { running.listener.execute { $0.stopAccepting() } }
                return listeners
            case .stopping(let listeners):
                return listeners
            case .idle, .stopped:
                return []
            }
        }
        for running in listeners { await running.exited.wait() }
        state.withLock { $0 = .stopped }
    }
}
