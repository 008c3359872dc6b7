import CSystem
import EventLoops
import Foundation
import RelayCore

/// The connections of one event loop and the requests waiting for a stream on them: the
/// executor of `ConnectionPoolStateMachine`, which makes every decision, and of
/// `InFlightWindow`, which sizes the client's limiter and the connections the pool may open.
/// Events from the connections, the timers and the client go to the state machines; `run(_:)`
/// does the I/O their actions ask for.
///
/// Thread rule: made anywhere and handed to its loop (the client holds it as a
/// `LoopBound`); from `start()` on, every method runs on `loop`'s thread. Requests are
/// handed to connections only from the dispatch event, never from inside a connection's
/// callbacks, so nghttp2 is never re-entered.
final class ConnectionPool {
    let loop: EventLoop
    private let configuration: APNSClientConfiguration
    private let tls: TLSContext
    private let tokens: ProviderTokenManager?
    private let clock: any APNSClock
    private let logger: Logger
    private let counters: StatisticsCounters

    private var state: ConnectionPoolStateMachine
    private var window: InFlightWindow
    /// The client's in-flight slots: the pool's window is its share of them.
    private let limiter: AsyncLimiter
    /// Requests handed to the pool and not yet finished (on streams or waiting).
    private var holding = 0
    /// Those of them on a connection's stream: the server has them.
    private var onStreams = 0
    /// The limiter's slots this pool's window stands for.
    private var limiterShare: Int
    /// In the order they were opened: a dispatch fills the first ones first.
    private var connections: [APNSConnection] = []
    private let authority: [UInt8]
    private var dispatchEvent: OpaquePointer?
    private var tickEvent: OpaquePointer?
    private var backoffEvent: OpaquePointer?
    private var dnsBase: OpaquePointer?
    private var dispatchScheduled = false
    private var shutdownDone: (@Sendable () -> Void)?
    /// libevent holds only unretained pointers to the pool: it keeps itself alive from
    /// `start` until its shutdown is done.
    private var keepAlive: ConnectionPool?
    /// The process's bound on connections, and the pool's id in it (nil: no bound).
    private var allowance: (shared: ConnectionAllowance, owner: Int)?
    /// Idle connections last reported to the allowance.
    private var reportedIdle = 0

    /// - Parameters:
    ///   - window: the pool's share of the client's bounds; its floor is its share of `limiter`.
    ///   - limiter: the client's in-flight slots, resized as the window moves.
    init(
        loop: EventLoop, configuration: APNSClientConfiguration, window: InFlightWindow.Limits, limiter: AsyncLimiter,
        tls: TLSContext, tokens: ProviderTokenManager?, clock: any APNSClock, logger: Logger, counters: StatisticsCounters
    ) {
        self.loop = loop
        self.configuration = configuration
        self.tls = tls
        self.tokens = tokens
        self.clock = clock
        self.logger = logger
        self.counters = counters
        self.authority = Array(configuration.authority.utf8)
        self.limiter = limiter
        self.window = InFlightWindow(limits: window)
        limiterShare = self.window.size
        state = ConnectionPoolStateMachine(limits: .init(
            maxConnections: window.maxConnections, maxAttempts: configuration.maxAttempts,
            maxConnectFailures: configuration.maxConnectFailures, queueTimeout: configuration.queueTimeout,
            reconnect: Backoff(base: .seconds(configuration.reconnectDelay), cap: .seconds(configuration.maxReconnectDelay)),
            idleTimeout: configuration.idleTimeout))
        state.setConnectionTarget(self.window.connections, openingAtOnce: 1)
    }

    /// The pool's clock in seconds, for its connections' timeouts too.
    var monotonicSeconds: Double { clock.monotonicSeconds }

    // MARK: libevent

    /// Sets up the pool's events on its loop and enrolls it in the process's `allowance`; the
    /// first call there.
    ///
    /// - Parameter member: the pool itself, as the allowance reaches it from other threads.
    func start(allowance shared: ConnectionAllowance?, member: LoopBound<ConnectionPool>) {
        keepAlive = self
        if let shared {
            allowance = (shared, shared.join(.init(
                granted: { member.execute { $0.run($0.state.allowanceGranted()) } },
                reclaim: { idleOnly in member.execute { $0.run($0.state.reclaim(idleOnly: idleOnly, idleSince: $0.idleSince)) } })))
        }
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

    func scheduleDispatch() {
        guard !dispatchScheduled, let dispatchEvent else { return }
        dispatchScheduled = true
        event_active(dispatchEvent, 0, 0)
    }

    private func scheduleDispatch(after seconds: Double) {
        var delay = makeTimeval(seconds: seconds)
        event_add(backoffEvent, &delay)
    }

    private func freeEvents() {
        for event in [dispatchEvent, tickEvent, backoffEvent] where event != nil { event_free(event) }
        dispatchEvent = nil
        tickEvent = nil
        backoffEvent = nil
        if let dnsBase { evdns_base_free(dnsBase, 1) }
        dnsBase = nil
    }

    // MARK: the executor

    private func run(_ actions: [ConnectionPoolStateMachine.Action]) {
        for action in actions { run(action) }
    }

    private func run(_ action: ConnectionPoolStateMachine.Action) {
        switch action {
        case let .send(requests, token):
            send(requests, token: token)
        case let .finish(request, result):
            finish(request, result)
        case let .finishAll(requests, result):
            for request in requests { finish(request, result) }
        case .retried:
            counters.retried.add(1, ordering: .relaxed)
        case .scheduleDispatch:
            scheduleDispatch()
        case let .scheduleDispatchAfter(seconds):
            scheduleDispatch(after: seconds)
        case let .connect(id):
            connect(id)
        case let .drain(id):
            connection(id)?.drain()
        case let .close(id, reason):
            connection(id)?.close(reason, clean: true)
        case let .connectFailed(reason, failures, retryIn):
            counters.connectionFailures.add(1, ordering: .relaxed)
            logger.warning("APNs connection failed", [
                "reason": reason, "failures_in_a_row": String(failures), "retry_in_ms": String(Int(retryIn * 1000)),
            ])
        case let .connectionClosed(id, reason, unanswered):
            logger.info("APNs connection closed", [
                "connection": String(id), "reason": reason, "unanswered": String(unanswered),
            ])
        case .requestAllowance:
            // Without a bound every request is granted at once; else perhaps later, by `granted`.
            if allowance.map({ $0.shared.request($0.owner) }) ?? true { run(state.allowanceGranted()) }
        case .releaseAllowance:
            if let allowance { allowance.shared.release(allowance.owner) }
        case .reclaimDeclined:
            if let allowance { allowance.shared.reclaimDeclined(allowance.owner) }
        case .shutDown:
            let done = shutdownDone
            shutdownDone = nil
            if let allowance { allowance.shared.leave(allowance.owner) }
            allowance = nil
            freeEvents()
            keepAlive = nil
            done?()
        }
    }

    private func finish(_ request: PendingRequest, _ result: HTTP2Answer) {
        holding -= 1
        counters.count(result)
        request.finish(result)
    }

    private func connection(_ id: Int) -> APNSConnection? {
        connections.first { $0.id == id }
    }

    /// Hands `requests`, in order, to the connections with room, filling the first ones first.
    private func send(_ requests: [PendingRequest], token: String?) {
        let now = monotonicSeconds
        var candidates = connections.filter(\.hasCapacity)
        for connection in candidates { connection.now = now }
        var used: [APNSConnection] = []
        var refusedBy: [Int] = []
        var next = 0
        while next < requests.count, let connection = candidates.first {
            if connection.submit(requests[next], token: token, authority: authority) {
                if used.last !== connection { used.append(connection) }
                next += 1
            } else {
                refusedBy.append(connection.id)
            }
            if !connection.hasCapacity { candidates.removeFirst() }
        }
        for connection in used { connection.flushSubmitted() }
        if next < requests.count || !refusedBy.isEmpty {
            run(state.notSent(Array(requests[next...]), refusedBy: refusedBy, now: now))
        }
    }

    private func connect(_ id: Int) {
        let connection = APNSConnection(id: id, pool: self)
        // Listed before connecting: should libevent report a failure at once, `connectionClosed`
        // finds it and takes it out again.
        connections.append(connection)
        if let error = connection.connect(
            base: loop.base, dnsBase: dnsBase, tls: tls, host: configuration.host, port: configuration.port
        ) {
            connections.removeAll { $0 === connection }
            run(state.connectionClosed(id, reason: error, unanswered: [], wasReady: false, answeredAny: false,
                                       now: monotonicSeconds, wallNow: clock.now, random: Double.random(in: 0...1)))
        }
    }

    // MARK: events from the client and the timers

    func enqueue(_ request: PendingRequest) {
        enqueue(contentsOf: [request])
    }

    func enqueue(contentsOf requests: [PendingRequest]) {
        // Work after a quiet spell: the round trip to the server, measured on one connection
        // before this work can queue anywhere (the path may have changed meanwhile).
        if holding == 0 {
            let now = monotonicSeconds
            for connection in connections where connection.pingPath(now: now) { break }
        }
        holding += requests.count
        run(state.enqueue(requests))
    }

    private func dispatch() {
        dispatchScheduled = false
        guard state.hasWaiting else { return }
        var token: String?
        if let tokens {
            do {
                token = try tokens.token()
            } catch {
                run(state.tokenUnavailable("\(error)"))
                return
            }
        }
        let freeStreams = connections.reduce(0) { $0 + $1.freeStreams }
        run(state.dispatch(freeStreams: freeStreams, token: token, now: monotonicSeconds, wallNow: clock.now))
    }

    private func tick() {
        let now = monotonicSeconds
        for connection in connections { connection.tick(now: now, configuration: configuration) }
        run(state.tick(now: now, wallNow: clock.now, idleSince: idleSince))
        if let allowance, connections.count(where: { $0.idleSince != nil }) != reportedIdle {
            reportedIdle = connections.count { $0.idleSince != nil }
            allowance.shared.reportIdle(allowance.owner, count: reportedIdle)
        }
    }

    /// The connections without an open stream, and since when.
    private var idleSince: [Int: Double] {
        var idle: [Int: Double] = [:]
        for connection in connections { if let since = connection.idleSince { idle[connection.id] = since } }
        return idle
    }

    /// Fails what waits, lets open streams be answered, closes every connection, then calls `done`.
    func shutdown(then done: @escaping @Sendable () -> Void) {
        guard state.phase == .running else { return }
        shutdownDone = done
        run(state.shutdown())
    }

    // MARK: events from connections

    func connectionReady(_ connection: APNSConnection) {
        counters.connectionsOpened.add(1, ordering: .relaxed)
        counters.connectionsOpen.add(1, ordering: .relaxed)
        if connection.resumedSession { counters.connectionsResumed.add(1, ordering: .relaxed) }
        logger.debug("APNs connection ready", ["connection": String(connection.id)])
        run(state.connectionReady(connection.id))
    }

    func settingsReceived(_ connection: APNSConnection) {
        window.peerAllows(streams: connection.peerMaxStreams)
        resized(nil)
        run(state.settingsReceived(connection.id))
    }

    // MARK: the in-flight window

    /// A PING came back `seconds` after it went out (`pathOnly`: sent while the pool held nothing).
    func roundTrip(_ seconds: Double, now: Double, pathOnly: Bool) {
        if pathOnly {
            window.pathMeasured(seconds, now: now)
        } else {
            window.roundTrip(seconds, now: now)
        }
        resized(nil)
    }

    /// A request was answered with `status`, `latency` seconds after it was sent.
    func answerTimed(latency: Double, status: Int, now: Double) {
        // 429 and 5xx: APNs is overwhelmed, or asks us to slow down.
        resized(status == 429 || status >= 500 ? window.failed() : window.answered(latency: latency, load: holding, sent: onStreams, now: now))
    }

    /// Carries the window's size (when it changed) to the client's limiter, and its
    /// connections to the state machine.
    private func resized(_ size: Int?) {
        if let size {
            limiter.resize(by: size - limiterShare)
            limiterShare = size
            logger.debug("APNs in-flight window resized", [
                "window": String(size), "connections": String(window.connections),
                "base_rtt_ms": String(format: "%.1f", (window.baseRoundTrip ?? 0) * 1000),
                "queueing_ms": String(format: "%.1f", (window.lastQueueing ?? 0) * 1000),
                "answers_per_second": String(Int(window.lastRate ?? 0)),
            ])
        }
        let target = window.connections
        if target != state.connectionTarget {
            state.setConnectionTarget(target, openingAtOnce: target - window.limits.baseConnections)
            scheduleDispatch()
        }
        if let base = window.baseRoundTrip {
            counters.baseRoundTripMicroseconds.store(Int(base * 1e6), ordering: .relaxed)
        }
    }

    func streamOpened(connectionStreams open: Int) {
        onStreams += 1
        counters.streamOpened(connectionStreams: open)
    }

    func streamsEnded(_ count: Int) {
        onStreams -= count
        counters.streamsEnded(count)
    }

    func goAwayReceived(_ connection: APNSConnection, lastStreamID: Int32, errorCode: UInt32, debug: String) {
        logger.notice("APNs sent GOAWAY", [
            "connection": String(connection.id), "last_stream_id": String(lastStreamID),
            "error_code": String(errorCode), "debug": debug,
        ])
        run(state.goAwayReceived(connection.id))
    }

    func answered(_ request: PendingRequest, on connection: APNSConnection, response: HTTP2Response, token: String?) {
        run(state.answered(request, on: connection.id, response: response) {
            guard let tokens, let token else { return false }
            return (try? tokens.tokenExpired(token)) == true
        })
    }

    func refused(_ request: PendingRequest, because reason: String) {
        run(state.refused(request, because: reason))
    }

    func timedOut(_ request: PendingRequest) {
        run(state.timedOut(request))
    }

    func retry(_ request: PendingRequest, because reason: String, countsAsAttempt: Bool = true) {
        if countsAsAttempt { resized(window.failed()) }
        run(state.retry(request, because: reason, countsAsAttempt: countsAsAttempt, now: monotonicSeconds, wallNow: clock.now))
    }

    func connectionClosed(_ connection: APNSConnection, reason: String, unanswered: [PendingRequest], wasReady: Bool) {
        connections.removeAll { $0 === connection }
        if wasReady { counters.connectionsOpen.subtract(1, ordering: .relaxed) }
        if !unanswered.isEmpty { resized(window.failed()) }
        run(state.connectionClosed(connection.id, reason: reason, unanswered: unanswered, wasReady: wasReady,
                                   answeredAny: connection.answeredAny, now: monotonicSeconds, wallNow: clock.now,
                                   random: Double.random(in: 0...1)))
    }
}
