import CSystem
import Foundation
import RelayCore

/// The connections of one event loop and the requests waiting for a stream on them.
///
/// Thread rule: every method runs on `loop`'s thread (callers elsewhere go through
/// `loop.execute`). Requests are handed to connections only from the dispatch event, never
/// from inside a connection's callbacks, so nghttp2 is never re-entered.
final class ConnectionPool: @unchecked Sendable {
    let loop: EventLoop
    private let configuration: APNSClientConfiguration
    private let maxConnections: Int
    private let tls: TLSContext
    private let tokens: ProviderTokenManager?
    private let clock: any APNSClock
    private let logger: Logger
    private let counters: StatisticsCounters

    private var connections: [APNSConnection] = []
    private let authority: [UInt8]
    private var pending = RequestQueue()
    private var nextConnectionID = 0
    private var dispatchEvent: OpaquePointer?
    private var tickEvent: OpaquePointer?
    private var backoffEvent: OpaquePointer?
    private var dnsBase: OpaquePointer?
    private var dispatchScheduled = false
    private var connectFailures = 0
    private var nextConnectAt = 0.0
    private var lastConnectError = "no connection yet"
    private var shutdownDone: (@Sendable () -> Void)?
    private var shuttingDown = false
    /// libevent holds only unretained pointers to the pool: it keeps itself alive from
    /// `start` until its shutdown is done.
    private var keepAlive: ConnectionPool?

    init(
        loop: EventLoop, configuration: APNSClientConfiguration, maxConnections: Int, tls: TLSContext,
        tokens: ProviderTokenManager?, clock: any APNSClock, logger: Logger, counters: StatisticsCounters
    ) {
        self.loop = loop
        self.configuration = configuration
        self.maxConnections = maxConnections
        self.tls = tls
        self.tokens = tokens
        self.clock = clock
        self.logger = logger
        self.counters = counters
        self.authority = Array(configuration.authority.utf8)
        loop.execute { [self] in start() }
    }

    private func start() {
        keepAlive = self
        let context = Unmanaged.passUnretained(self).toOpaque()
        dispatchEvent = event_new(loop.base, -1, 0, { _, _, context in
            Unmanaged<ConnectionPool>.fromOpaque(context!).takeUnretainedValue().dispatch()
        }, context)
        backoffEvent = event_new(loop.base, -1, 0, { _, _, context in
            Unmanaged<ConnectionPool>.fromOpaque(context!).takeUnretainedValue().scheduleDispatch()
        }, context)
        tickEvent = event_new(loop.base, -1, Int16(EV_PERSIST), { _, _, context in
            Unmanaged<ConnectionPool>.fromOpaque(context!).takeUnretainedValue().tick()
        }, context)
        var interval = makeTimeval(seconds: 0.25)
        event_add(tickEvent, &interval)
        if !TLSContext.isIPAddress(configuration.host) {
            dnsBase = evdns_base_new(loop.base, Int32(EVDNS_BASE_INITIALIZE_NAMESERVERS))
        }
    }

    // MARK: requests

    func enqueue(_ request: PendingRequest) {
        guard !shuttingDown else {
            finish(request, .failed(.shutdown))
            return
        }
        pending.append(request)
        scheduleDispatch()
    }

    func enqueue(contentsOf requests: [PendingRequest]) {
        guard !shuttingDown else {
            for request in requests { finish(request, .failed(.shutdown)) }
            return
        }
        for request in requests { pending.append(request) }
        scheduleDispatch()
    }

    func scheduleDispatch() {
        guard !dispatchScheduled, let dispatchEvent else { return }
        dispatchScheduled = true
        event_active(dispatchEvent, 0, 0)
    }

    /// Moves waiting requests onto streams with room, and opens a connection if none has room.
    private func dispatch() {
        dispatchScheduled = false
        guard !pending.isEmpty else { return }
        var token: String?
        if let tokens {
            do {
                token = try tokens.token()
            } catch {
                failAllPending(.failed(.connectionFailed("cannot sign a provider token: \(error)")))
                return
            }
        }
        let now = clock.now
        let monotonicNow = monotonicSeconds()
        var candidates = connections.filter(\.hasCapacity)
        for connection in candidates { connection.now = monotonicNow }
        var used: [APNSConnection] = []
        while !candidates.isEmpty, let request = pending.popFirst() {
            if isExpired(request.notification, now: now) {
                finish(request, .failed(.expired))
                continue
            }
            let connection = candidates[0]
            if connection.submit(request, token: token, authority: authority) {
                if used.last !== connection { used.append(connection) }
            } else {
                pending.prepend(request)
            }
            if !connection.hasCapacity { candidates.removeFirst() }
        }
        for connection in used { connection.flushSubmitted() }
        if !pending.isEmpty { openConnectionIfAllowed() }
    }

    private func openConnectionIfAllowed() {
        guard !shuttingDown else { return }
        let live = connections.filter { $0.state == .connecting || $0.state == .ready }
        // A connection still in its handshake, or waiting for the peer's SETTINGS, will soon
        // have room: open one more only when those are all known to be full.
        let coming = live.contains { $0.state == .connecting || !$0.peerSettingsReceived }
        guard live.count < maxConnections, !coming else { return }
        let now = monotonicSeconds()
        guard now >= nextConnectAt else {
            var delay = makeTimeval(seconds: nextConnectAt - now)
            event_add(backoffEvent, &delay)
            return
        }
        nextConnectionID += 1
        let connection = APNSConnection(id: nextConnectionID, pool: self)
        // Listed before connecting: should libevent report a failure at once, `connectionClosed`
        // finds it and takes it out again.
        connections.append(connection)
        if let error = connection.connect(
            base: loop.base, dnsBase: dnsBase, tls: tls, host: configuration.host, port: configuration.port
        ) {
            connections.removeAll { $0 === connection }
            connectFailed(error)
        }
    }

    // MARK: events from connections

    func connectionReady(_ connection: APNSConnection) {
        counters.connectionsOpened.add(1, ordering: .relaxed)
        logger.debug("APNs connection ready", ["connection": String(connection.id)])
        scheduleDispatch()
    }

    func capacityChanged() {
        scheduleDispatch()
    }

    func streamOpened(connectionStreams open: Int) {
        counters.streamOpened(connectionStreams: open)
    }

    func streamsEnded(_ count: Int) {
        counters.streamsEnded(count)
    }

    func goAwayReceived(_ connection: APNSConnection, lastStreamID: Int32, errorCode: UInt32, debug: String) {
        logger.notice("APNs sent GOAWAY", [
            "connection": String(connection.id), "last_stream_id": String(lastStreamID),
            "error_code": String(errorCode), "debug": debug,
        ])
        scheduleDispatch()
    }

    func answered(_ request: PendingRequest, on connection: APNSConnection, status: Int, apnsID: UUID?, body: [UInt8], token: String?) {
        connectFailures = 0
        nextConnectAt = 0
        let result = status == 200
            ? APNSResult.accepted(apnsID: apnsID ?? request.notification.apnsID)
            : APNSResult(status: status, apnsID: nil, body: body, sentID: request.notification.apnsID)
        if case .rejected(403, .expiredProviderToken, _) = result, let tokens, let token, !request.retriedWithNewToken,
           (try? tokens.tokenExpired(token)) == true {
            // One retry with the fresh token; a second ExpiredProviderToken goes to the caller.
            request.retriedWithNewToken = true
            pending.prepend(request)
        } else {
            if status == 503 { connection.drain() }
            finish(request, result)
        }
        scheduleDispatch()
    }

    /// The server refused `request` for its content (not for the connection's state): it
    /// fails for good, never sent again.
    func refused(_ request: PendingRequest, because reason: String) {
        finish(request, .failed(.refused(reason)))
        scheduleDispatch()
    }

    func timedOut(_ request: PendingRequest) {
        finish(request, .failed(.timedOut))
        scheduleDispatch()
    }

    /// Sends `request` again, unchanged (same apns-id and collapse id), unless it ran out of
    /// attempts or time.
    ///
    /// - Parameter countsAsAttempt: false for a stream the server refused (REFUSED_STREAM,
    ///   or past a GOAWAY's last stream) on a connection that answered others: such a
    ///   stream was never processed, and a server that sends GOAWAY every N streams would
    ///   otherwise use up the attempts of requests that merely queued behind others.
    func retry(_ request: PendingRequest, because reason: String, countsAsAttempt: Bool = true) {
        if countsAsAttempt { request.attempts += 1 }
        if shuttingDown {
            finish(request, .failed(.shutdown))
        } else if request.attempts >= configuration.maxAttempts {
            finish(request, .failed(.connectionFailed("no answer after \(request.attempts) attempts: \(reason)")))
        } else if isExpired(request.notification, now: clock.now) {
            finish(request, .failed(.expired))
        } else {
            counters.retried.add(1, ordering: .relaxed)
            request.queuedAt = monotonicSeconds()
            pending.prepend(request)
        }
        scheduleDispatch()
    }

    func connectionClosed(_ connection: APNSConnection, reason: String, unanswered: [PendingRequest], wasReady: Bool) {
        connections.removeAll { $0 === connection }
        if !wasReady {
            connectFailed(reason)
        } else if !connection.answeredAny && !unanswered.isEmpty {
            connectFailed("closed before answering anything: \(reason)")
        } else {
            logger.info("APNs connection closed", [
                "connection": String(connection.id), "reason": reason, "unanswered": String(unanswered.count),
            ])
        }
        for request in unanswered.reversed() { retry(request, because: reason) }
        scheduleDispatch()
        finishShutdownIfDone()
    }

    private func connectFailed(_ reason: String) {
        connectFailures += 1
        lastConnectError = reason
        counters.connectionFailures.add(1, ordering: .relaxed)
        let exponential = configuration.reconnectDelay * pow(2, Double(min(connectFailures - 1, 30)))
        let delay = min(exponential, configuration.maxReconnectDelay) * Double.random(in: 0.5...1.0)
        nextConnectAt = monotonicSeconds() + delay
        logger.warning("APNs connection failed", [
            "reason": reason, "failures_in_a_row": String(connectFailures), "retry_in_ms": String(Int(delay * 1000)),
        ])
        if connectFailures >= configuration.maxConnectFailures {
            failAllPending(.failed(.connectionFailed(reason)))
        }
        scheduleDispatch()
    }

    // MARK: housekeeping

    private func tick() {
        let now = monotonicSeconds()
        for connection in connections { connection.tick(now: now, configuration: configuration) }
        let wallNow = clock.now
        let stale = pending.removeAll { request in
            now - request.queuedAt > configuration.queueTimeout || isExpired(request.notification, now: wallNow)
        }
        for request in stale {
            if isExpired(request.notification, now: wallNow) {
                finish(request, .failed(.expired))
            } else {
                finish(request, .failed(.connectionFailed("no usable connection: \(lastConnectError)")))
            }
        }
    }

    /// Whether a retry would deliver the notification after it expired (0 means "now or never").
    private func isExpired(_ notification: APNSNotification, now: Date) -> Bool {
        guard let expiration = notification.expiration, expiration > 0 else { return false }
        return now.timeIntervalSince1970 > Double(expiration)
    }

    private func finish(_ request: PendingRequest, _ result: APNSResult) {
        counters.count(result)
        request.finish(result)
    }

    private func failAllPending(_ result: APNSResult) {
        for request in pending.removeAll(where: { _ in true }) { finish(request, result) }
    }

    // MARK: shutdown

    /// Fails what waits, lets open streams be answered, closes every connection, then calls `done`.
    func shutdown(then done: @escaping @Sendable () -> Void) {
        guard !shuttingDown else { return }
        shuttingDown = true
        shutdownDone = done
        failAllPending(.failed(.shutdown))
        for connection in connections { connection.drain() }
        for connection in connections where connection.state == .connecting { connection.close("shutting down") }
        finishShutdownIfDone()
    }

    private func finishShutdownIfDone() {
        guard shuttingDown, connections.isEmpty, let done = shutdownDone else { return }
        shutdownDone = nil
        for event in [dispatchEvent, tickEvent, backoffEvent] where event != nil { event_free(event) }
        dispatchEvent = nil
        tickEvent = nil
        backoffEvent = nil
        if let dnsBase { evdns_base_free(dnsBase, 1) }
        dnsBase = nil
        keepAlive = nil
        done()
    }
}
