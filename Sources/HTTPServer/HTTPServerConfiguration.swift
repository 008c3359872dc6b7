import Foundation

/// How the server listens and what it bounds.
public struct HTTPServerConfiguration: Sendable {
    public var host: String = "127.0.0.1"
    /// 0 binds an ephemeral port; `HTTPServer.start()` returns the one chosen.
    public var port: Int = 8080
    /// Event loops, each on its own thread, all accepting on the same port (SO_REUSEPORT).
    public var threads: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Larger request bodies are answered 413 (code 1005).
    public var maxBodySize: Int = 1 << 20
    /// Past this many requests awaiting their handler, new ones are answered 503 (code 1030) at once.
    public var maxRequestsInFlight: Int = 10_000
    /// PEM files of the certificate (chain) and its private key; set, the listener speaks
    /// HTTPS only.
    public var tls: TLSFiles?

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
