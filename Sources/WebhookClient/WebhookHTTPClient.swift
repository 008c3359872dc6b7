import APNSClient
import EventLoops
import RelayCore
import Synchronization

/// The process's webhook poster: HTTP/1.1 over TCP or TLS on the process's event loops,
/// one connection per attempt, at most `maxConcurrentPosts` at once, behind the SSRF guard.
/// Every post ends within `configuration.timeout` (a little more while waiting its turn).
public final class WebhookHTTPClient: WebhookPoster {
    private let configuration: WebhookClientConfiguration
    private let tls: TLSContext
    private let resolvers: [LoopBound<LoopResolver>]
    private let limiter: AsyncLimiter
    private let nextLoop = Atomic<Int>(0)

    /// - Throws: when the CA file cannot be read.
    public init(group: EventLoopGroup, configuration: WebhookClientConfiguration) throws {
        self.configuration = configuration
        tls = try TLSContext(caFile: configuration.caFile, clientCertificatePEM: nil, clientKeyPEM: nil, alpn: ["http/1.1"])
        resolvers = group.loops.map { LoopBound(handingOver: LoopResolver(loop: $0), to: $0) }
        limiter = AsyncLimiter(limit: configuration.maxConcurrentPosts)
    }

    deinit {
        for resolver in resolvers { resolver.execute { $0.close() } }
    }

    public func post(_ url: WebhookURL, body: [UInt8], headers: [(String, String)]) async -> WebhookAttempt {
        guard body.count <= configuration.maxRequestBytes else {
            return .refused("the body is \(body.count) bytes, over the limit of \(configuration.maxRequestBytes)")
        }
        let request: [UInt8]
        switch WebhookRequest.encode(url, body: body, headers: headers) {
        case let .failure(refusal): return .refused(refusal.description)
        case let .success(bytes): request = bytes
        }
        await limiter.acquire()
        defer { limiter.release() }
        let resolver = resolvers[nextLoop.wrappingAdd(1, ordering: .relaxed).oldValue % resolvers.count]
        let tls = url.scheme == .https ? tls : nil
        let configuration = configuration
        return await withCheckedContinuation { continuation in
            let started = resolver.execute { resolver in
                WebhookExchange(resolver: resolver, url: url, request: request, tls: tls, configuration: configuration) {
                    continuation.resume(returning: $0)
                }.start()
            }
            if !started { continuation.resume(returning: .failed("the event loop has stopped")) }
        }
    }
}
