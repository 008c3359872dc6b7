import Foundation
import Glibc

/// How the server listens and what it bounds.
public struct HTTPServerConfiguration: Sendable {
    public var host: String = "127.0.0.1"
    /// 0 binds an ephemeral port; `HTTPServer.start()` returns the one chosen.
    public var port: Int = 8080
    /// Listeners, spread over the group's loops (one each when it equals the group's size),
    /// all accepting on the same port (SO_REUSEPORT).
    public var threads: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Larger request bodies are answered 413 (`HTTPRejection.bodyTooLarge`).
    public var maxBodySize: Int = 1 << 20
    /// Past this many requests awaiting their handler, new ones are answered 503 (`HTTPRejection.busy`) at once.
    public var maxRequestsInFlight: Int = 10_000
    /// A request must arrive in full, headers and body, within this long of its first byte;
    /// past it the connection is closed (a slowloris cannot hold it by trickling). A
    /// connection that sends nothing is closed after evhttp's idle timeout (30 s).
    public var requestReadTimeout: Duration = .seconds(10)
    /// Open connections the server holds at most, over all its loops; past it a new
    /// connection is answered 503 (`HTTPRejection.connectionRefused`) and closed at once (closed without an answer
    /// when the listener speaks TLS).
    public var maxConnections: Int = HTTPServerConfiguration.defaultMaxConnections
    /// Open connections one source address (an IPv6 /64) holds at most; nil: a quarter of
    /// `maxConnections`, at least 16. Near `maxConnections` an address holding its fair
    /// share gets no more, and at it an idle connection of the heaviest address is closed
    /// for a newcomer under its share (see `ConnectionAdmission`).
    public var maxConnectionsPerAddress: Int?
    /// Once the answers buffered for clients that do not read them exceed this many bytes
    /// over all connections, new requests are answered 503 (`HTTPRejection.busy`) unhandled. Each
    /// connection holds one answer at most: while it is unread, nothing more is read from
    /// that connection.
    public var maxBufferedOutput: Int = 64 << 20
    /// A connection is closed after answering this many requests (its last answer says
    /// `Connection: close`; clients open another). The answers of a client that pipelines
    /// without reading them pile up in both kernels' socket buffers, megabytes of them: this
    /// bounds the requests such a connection makes the server handle.
    public var maxRequestsPerConnection: Int = 100
    /// PEM files of the certificate (chain) and its private key; set, the listener speaks
    /// HTTPS only.
    public var tls: TLSFiles?

    /// Three quarters of the process's open-file limit (RLIMIT_NOFILE), at least 64: the
    /// rest stays for PostgreSQL, APNs connections and files.
    public static var defaultMaxConnections: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return 10_000 }
        return max(64, Int(clamping: limit.rlim_cur) / 4 * 3)
    }

    var effectiveMaxConnectionsPerAddress: Int { maxConnectionsPerAddress ?? max(16, maxConnections / 4) }

    public struct TLSFiles: Sendable, Equatable {
        public var certificatePath: String
        public var keyPath: String

        public init(certificatePath: String, keyPath: String) {
            self.certificatePath = certificatePath
            self.keyPath = keyPath
        }
    }

    public init(
        host: String = "127.0.0.1", port: Int = 8080,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        maxBodySize: Int = 1 << 20, maxRequestsInFlight: Int = 10_000
    ) {
        self.host = host
        self.port = port
        self.threads = threads
        self.maxBodySize = maxBodySize
        self.maxRequestsInFlight = maxRequestsInFlight
    }
}
