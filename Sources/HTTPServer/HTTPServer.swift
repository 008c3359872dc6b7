import CSystem
import EventLoops
import Foundation
import RelayCore
import Synchronization

/// An HTTP/1.1 server on libevent's evhttp: `configuration.threads` listeners spread over
/// the loops of an `EventLoopGroup`, all accepting on the same port through SO_REUSEPORT,
/// handlers run as Swift tasks off the loops.
public final class HTTPServer: Sendable {
    private enum State {
        case idle
        case running([HTTPListener])
        case stopping([HTTPListener])
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
            var address = try SocketAddress(host: configuration.host, port: configuration.port)
            if configuration.port != 0, address.isInUse() {
                throw .addressInUse(host: configuration.host, port: configuration.port)
            }
            var listeners: [HTTPListener] = []
            var port = configuration.port
            do throws(HTTPServerError) {
                for _ in 0..<max(1, configuration.threads) {
                    let listener = try HTTPListener(context: context, address: address, loop: group.next())
                    listeners.append(listener)
                    if port == 0 {
                        // Every further listener binds the port the kernel picked for the first.
                        guard let chosen = listener.port else { throw .setupFailed("getsockname") }
                        port = chosen
                        address = try SocketAddress(host: configuration.host, port: port)
                    }
                }
            } catch {
                for listener in listeners { listener.discard() }
                throw error
            }
            for listener in listeners { listener.loop.execute { listener.start() } }
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
        let listeners: [HTTPListener] = state.withLock { state in
            switch state {
            case .running(let listeners):
                state = .stopping(listeners)
                for listener in listeners { listener.loop.execute { listener.stopAccepting() } }
                return listeners
            case .stopping(let listeners):
                return listeners
            case .idle, .stopped:
                return []
            }
        }
        for listener in listeners { await listener.exited.wait() }
        state.withLock { $0 = .stopped }
    }
}
