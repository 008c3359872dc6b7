import APNSClient
import CSystem
import EventLoops
import Foundation
import RelayCore

/// One webhook POST on one loop: resolve the host, check every address (`AddressPolicy`),
/// connect to the checked one, send the request, read the answer (`HTTPResponseParser`)
/// and close. Every step is bounded: the connect phase (DNS, TCP, TLS) by
/// `connectTimeout`, the whole by `timeout`, and what is read by the answer limits.
///
/// Thread rule: made, run and finished on its loop's thread. It keeps itself alive from
/// `start` until it finishes; a DNS lookup in flight holds a reference of its own until
/// evdns calls back (always exactly once, with EVUTIL_EAI_CANCEL after a cancel).
final class WebhookExchange {
    enum Phase: String {
        /// DNS, TCP and the TLS handshake.
        case connect
        /// Sending the request and reading the answer.
        case answer
    }

    private let resolver: LoopResolver
    private let url: WebhookURL
    private let request: [UInt8]
    private let tls: TLSContext?
    private let configuration: WebhookClientConfiguration
    private var completion: ((WebhookAttempt) -> Void)?
    private var parser: HTTPResponseParser
    private var phase = Phase.connect
    private let startedAt = ContinuousClock.now
    private var timer: OpaquePointer?
    private var lookup: OpaquePointer?
    private var bufferEvent: OpaquePointer?
    private var address: IPAddress?
    private var keepAlive: WebhookExchange?
    /// Where the answer's bytes are copied out of libevent's buffer.
    private var scratch = [UInt8](repeating: 0, count: 4096)

    /// - Parameters:
    ///   - tls: for `https` URLs; nil for `http`.
    ///   - completion: called once, on the loop's thread.
    init(resolver: LoopResolver, url: WebhookURL, request: [UInt8], tls: TLSContext?, configuration: WebhookClientConfiguration,
         completion: @escaping (WebhookAttempt) -> Void) {
        self.resolver = resolver
        self.url = url
        self.request = request
        self.tls = tls
        self.configuration = configuration
        self.completion = completion
        parser = HTTPResponseParser(limits: configuration.answerLimits)
    }

    func start() {
        keepAlive = self
        let context = Unmanaged.passUnretained(self).toOpaque()
        timer = event_new(resolver.loop.base, -1, 0, { _, _, context in
            Unmanaged<WebhookExchange>.fromOpaque(context!).takeUnretainedValue().timedOut()
        }, context)
        arm(after: min(configuration.connectTimeout, configuration.timeout))
        if let literal = url.literalAddress {
            connect(among: [literal])
        } else {
            resolve()
        }
    }

    private func arm(after duration: Duration) {
        let (seconds, attoseconds) = max(duration, .zero).components
        var delay = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        event_add(timer, &delay)
    }

    private func timedOut() {
        finish(.timedOut(phase.rawValue))
    }

    // MARK: DNS

    private func resolve() {
        guard let dnsBase = resolver.dnsBase else { return finish(.failed("DNS: cannot start a resolver")) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        resolver.lookupStarted()
        let retained = Unmanaged.passRetained(self).toOpaque()
        let request = evdns_getaddrinfo(dnsBase, url.host, nil, &hints, { result, addresses, context in
            Unmanaged<WebhookExchange>.fromOpaque(context!).takeRetainedValue().resolved(result, addresses)
        }, retained)
        // Nil when it answered at once (the callback has run).
        if request != nil, completion != nil { lookup = request }
    }

    private func resolved(_ result: Int32, _ first: UnsafeMutablePointer<addrinfo>?) {
        lookup = nil
        resolver.lookupEnded()
        defer { if let first { evutil_freeaddrinfo(first) } }
        guard completion != nil else { return }
        guard result == 0 else { return finish(.failed("DNS: \(url.host): \(String(cString: evutil_gai_strerror(result)))")) }
        var addresses: [IPAddress] = []
        var node = first
        while let entry = node?.pointee {
            if let address = entry.ai_addr.flatMap(Self.address(of:)) { addresses.append(address) }
            node = entry.ai_next
        }
        connect(among: addresses)
    }

    private static func address(of socketAddress: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin_addr) { IPAddress(networkBytes: $0) } }
        case AF_INET6:
            socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr) { IPAddress(networkBytes: $0) } }
        default:
            nil
        }
    }

    // MARK: the connection

    private func connect(among addresses: [IPAddress]) {
        let address: IPAddress
        switch AddressPolicy.target(among: addresses, allowPrivate: configuration.allowPrivate) {
        case let .failure(refusal): return finish(.refused(refusal.description))
        case let .success(checked): address = checked
        }
        self.address = address
        let base = resolver.loop.base
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)
        if let tls {
            // SNI and the certificate check are for the URL's host, whatever address it resolved to.
            guard let ssl = tls.makeSSL(host: url.host, port: url.port) else { return finish(.failed("cannot create a TLS session")) }
            bufferEvent = bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_CONNECTING, options)
            if bufferEvent == nil { SSL_free(ssl) }
            // Many servers close without TLS close_notify after `Connection: close`: that ends the answer, not an error.
            bufferEvent.map { bufferevent_openssl_set_allow_dirty_shutdown($0, 1) }
        } else {
            bufferEvent = bufferevent_socket_new(base, -1, options)
        }
        guard let bufferEvent else { return finish(.failed("cannot create a connection")) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        bufferevent_setcb(bufferEvent, { _, context in
            Unmanaged<WebhookExchange>.fromOpaque(context!).takeUnretainedValue().readable()
        }, nil, { _, events, context in
            Unmanaged<WebhookExchange>.fromOpaque(context!).takeUnretainedValue().event(events)
        }, context)
        bufferevent_enable(bufferEvent, Int16(EV_READ | EV_WRITE))
        // Queued until the connection (and handshake) is up.
        bufferevent_write(bufferEvent, request, request.count)
        let started = SocketAddress(address, port: url.port).withSockaddr { bufferevent_socket_connect(bufferEvent, $0, Int32($1)) }
        if started != 0 { finish(.failed("cannot connect to \(endpoint)")) }
    }

    private var endpoint: String {
        guard let address else { return url.authority }
        return address.isIPv4 ? "\(address):\(url.port)" : "[\(address)]:\(url.port)"
    }

    private func event(_ events: Int16) {
        if events & Int16(BEV_EVENT_CONNECTED) != 0 {
            phase = .answer
            event_del(timer)
            arm(after: configuration.timeout - (ContinuousClock.now - startedAt))
        } else if events & Int16(BEV_EVENT_EOF) != 0, events & Int16(BEV_EVENT_ERROR) == 0 {
            readable()
            answer(parser.endOfInput())
        } else if events & Int16(BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT) != 0 {
            let problem = describeError()
            // A receiver may answer (413, say) and reset before reading the whole request:
            // an answer already here counts.
            if phase == .answer {
                readable()
                if case let .answered(response) = parser.endOfInput() { return finish(.answered(status: response.status)) }
            }
            finish(.failed(problem))
        }
    }

    private func readable() {
        guard let bufferEvent else { return }
        let input = bufferevent_get_input(bufferEvent)
        while completion != nil, evbuffer_get_length(input) > 0 {
            let count = scratch.withUnsafeMutableBytes { evbuffer_remove(input, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            answer(parser.parse(scratch.prefix(Int(count))))
        }
    }

    private func answer(_ progress: HTTPResponseParser.Progress) {
        switch progress {
        case .needMore: break
        case let .answered(response): finish(.answered(status: response.status))
        case let .malformed(problem): finish(.failed("\(endpoint): \(problem)"))
        }
    }

    private func describeError() -> String {
        let socketError = errno
        var messages: [String] = []
        if let bufferEvent, tls != nil {
            while case let code = bufferevent_get_openssl_error(bufferEvent), code != 0 {
                messages.append(ERR_reason_error_string(code).map { String(cString: $0) } ?? "TLS error \(code)")
            }
            if phase == .connect, let ssl = bufferevent_openssl_get_ssl(bufferEvent) {
                let verify = SSL_get_verify_result(ssl)
                if verify != X509_V_OK { messages.append("certificate: \(String(cString: X509_verify_cert_error_string(verify)))") }
            }
        }
        if messages.isEmpty, socketError != 0 { messages.append(String(cString: strerror(socketError))) }
        let during = phase == .connect ? "connecting to" : "talking to"
        return "\(during) \(endpoint): " + (messages.isEmpty ? "connection error" : messages.joined(separator: "; "))
    }

    /// Ends the exchange once: the lookup cancelled, the timer and connection freed.
    private func finish(_ attempt: WebhookAttempt) {
        guard let completion else { return }
        self.completion = nil
        if let lookup { evdns_getaddrinfo_cancel(lookup) }
        lookup = nil
        if let timer { event_free(timer) }
        timer = nil
        if let bufferEvent { bufferevent_free(bufferEvent) }
        bufferEvent = nil
        ERR_clear_error()
        completion(attempt)
        withExtendedLifetime(self) { keepAlive = nil }
    }
}
