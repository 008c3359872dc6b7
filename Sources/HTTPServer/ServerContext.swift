import RelayCore
import Synchronization

/// What every event loop of one server shares: settings, the responder, the logger and
/// the count of requests in flight across all loops.
final class ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let errorPage: ErrorPage
    /// The TLS context when the configuration names certificate files; its loading error otherwise.
    let tls: Result<ServerTLSContext, HTTPServerError>?
    /// Requests handed to the responder whose reply has not come back yet.
    let inFlight = Atomic<Int>(0)
    /// Connections accepted and not yet closed, over all loops.
    let openConnections = Atomic<Int>(0)

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.errorPage = ErrorPage(maxBodySize: configuration.maxBodySize)
        self.tls = configuration.tls.map { files in Result { () throws(HTTPServerError) in try ServerTLSContext(files) } }
    }

    /// Claims a slot for one more request, or returns false when the bound is reached.
    func admit() -> Bool {
        let now = inFlight.add(1, ordering: .relaxed).newValue
        if now > configuration.maxRequestsInFlight {
            inFlight.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func release() {
        inFlight.subtract(1, ordering: .relaxed)
    }

    /// Counts one more open connection, or returns false when `maxConnections` are open.
    func claimConnection() -> Bool {
        let now = openConnections.add(1, ordering: .relaxed).newValue
        if now > configuration.maxConnections {
            openConnections.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func releaseConnection() {
        openConnections.subtract(1, ordering: .relaxed)
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
