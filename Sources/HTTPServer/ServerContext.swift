import RelayCore
import Synchronization

/// What every event loop of one server shares: settings, the responder, the logger, and
/// the counts across all loops: requests in flight, connections by address, bytes buffered.
final class ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let errorPage: ErrorPage
    /// The TLS context when the configuration names certificate files; its loading error otherwise.
    let tls: Result<ServerTLSContext, HTTPServerError>?
    /// Requests handed to the responder whose reply has not come back yet.
    let inFlight: BoundedCount
    /// Connections accepted and not yet closed, over all loops, by source address.
    let admission: Mutex<ConnectionAdmission>
    /// Bytes read from clients and not yet consumed by libevent, over all connections.
    let bufferedInput = ByteGauge()
    /// Bytes of answers not yet taken by the clients' sockets, over all connections.
    let bufferedOutput = ByteGauge()

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        inFlight = BoundedCount(limit: configuration.maxRequestsInFlight)
        admission = Mutex(ConnectionAdmission(
            maxConnections: configuration.maxConnections, maxPerAddress: configuration.effectiveMaxConnectionsPerAddress))
        self.errorPage = ErrorPage(maxBodySize: configuration.maxBodySize, respond: { responder.response(to: $0) })
        self.tls = configuration.tls.map { files in Result { () throws(HTTPServerError) in try ServerTLSContext(files) } }
    }

    /// The one access-log line per request; never the body nor any header value.
    func logRequest(method: String, path: String, status: Int, started: ContinuousClock.Instant,
                    requestID: String, extra: [String: String] = [:]) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        var fields = [
            "method": method, "path": path, "status": String(status),
            "duration_ms": String(format: "%.3f", milliseconds), "request_id": requestID,
        ]
        fields.merge(extra) { _, new in new }
        logger.info("request", fields)
    }
}

/// A count shared by every loop, refused past its limit.
final class BoundedCount: Sendable {
    let limit: Int
    private let value = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    var current: Int { value.load(ordering: .relaxed) }

    /// Counts one more, or returns false (counting nothing) when `limit` are counted.
    func claim() -> Bool {
        if value.add(1, ordering: .relaxed).newValue > limit {
            value.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func release() {
        value.subtract(1, ordering: .relaxed)
    }
}

/// A byte count shared by every loop, changed by the deltas libevent's buffer callbacks report.
final class ByteGauge: Sendable {
    private let value = Atomic<Int>(0)

    var current: Int { value.load(ordering: .relaxed) }

    func add(_ delta: Int) {
        if delta != 0 { value.add(delta, ordering: .relaxed) }
    }
}
