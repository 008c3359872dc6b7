import CSystem
import Foundation
import RelayCore
import Synchronization

/// An HTTP/1.1 server on libevent's evhttp: one event loop per thread, all accepting on
/// the same port through SO_REUSEPORT, handlers run as Swift tasks off the loops.
public final class HTTPServer: Sendable {
    private enum State {
        case idle
        case running([EventLoop])
        case stopping([EventLoop])
        case stopped
    }

    private let context: ServerContext
    private let state = Mutex<State>(.idle)

    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        context = ServerContext(configuration: configuration, responder: responder, logger: logger)
    }

    /// Binds, starts the loop threads and returns the bound port.
    ///
    /// - Throws: `HTTPServerError.addressInUse` when another socket holds the address,
    ///   other `HTTPServerError`s when the address is invalid or libevent fails.
    public func start() throws -> Int {
        Self.prepareProcess
        return try state.withLock { state throws(HTTPServerError) -> Int in
            guard case .idle = state else { throw .alreadyStarted }
            if case .failure(let error)? = context.tls { throw error }
            let configuration = context.configuration
            var address = try SocketAddress(host: configuration.host, port: configuration.port)
            if configuration.port != 0, address.isInUse() {
                throw .addressInUse(host: configuration.host, port: configuration.port)
            }
            var loops: [EventLoop] = []
            var port = configuration.port
            do throws(HTTPServerError) {
                for _ in 0..<max(1, configuration.threads) {
                    let loop = try EventLoop(context: context, address: address)
                    loops.append(loop)
                    if port == 0 {
                        // Every further loop binds the port the kernel picked for the first.
                        guard let chosen = loop.port else { throw .setupFailed("getsockname") }
                        port = chosen
                        address = try SocketAddress(host: configuration.host, port: port)
                    }
                }
            } catch {
                for loop in loops { loop.discard() }
                throw error
            }
            for (index, loop) in loops.enumerated() {
                let thread = Thread { loop.run() }
                thread.name = "http-loop-\(index)"
                thread.start()
            }
            state = .running(loops)
            context.logger.info("http server listening", ["host": configuration.host, "port": String(port),
                                                          "threads": String(loops.count)])
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
    /// written, then stops the loops and waits for their threads to end.
    public func shutdown() async {
        let loops: [EventLoop] = state.withLock { state in
            switch state {
            case .running(let loops):
                state = .stopping(loops)
                for loop in loops { loop.post(.stopAccepting) }
                return loops
            case .stopping(let loops):
                return loops
            case .idle, .stopped:
                return []
            }
        }
        for loop in loops { await loop.exited.wait() }
        state.withLock { $0 = .stopped }
    }

    /// Once per process: libevent locking for cross-thread `event_active`, and SIGPIPE
    /// ignored so a write to a vanished client fails with EPIPE instead of killing us.
    private static let prepareProcess: Void = {
        evthread_use_pthreads()
        signal(SIGPIPE, SIG_IGN)
    }()
}
