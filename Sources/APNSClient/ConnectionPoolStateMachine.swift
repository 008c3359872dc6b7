import Foundation
import RelayCore

/// The policy of one loop's connection pool: which waiting request goes out, when a
/// connection opens (on demand, within the process's allowance) and closes (idle too long,
/// or given back to another app), how long after a failure, and what becomes of a request
/// whose connection died.
///
/// Pure: times (`now` in the clock's `monotonicSeconds`, `wallNow` from the injected `APNSClock` for
/// expirations) and the backoff's random draw come in with each event, and each event
/// returns the I/O to do as `Action`s, which `ConnectionPool.run(_:)` carries out.
struct ConnectionPoolStateMachine {
    /// The pool's view of one of its connections (the connection keeps its HTTP/2 state).
    enum ConnectionState: Equatable {
        /// TCP connect and TLS handshake under way.
        case connecting
        /// HTTP/2 up, the peer's first SETTINGS not yet in: it will soon have room.
        case awaitingSettings
        /// Takes new streams as the peer allows.
        case ready
        /// Takes no new streams (GOAWAY, a 503 `Shutdown`, ids used up, shutdown); closes once answered.
        case draining
    }

    enum Phase: Equatable { case running, shuttingDown, shutDown }

    enum Action {
        /// Hands the requests, in order, to the connections with room.
        case send([PendingRequest], token: String?)
        /// Reports `result` to the request.
        case finish(PendingRequest, HTTP2Answer)
        /// Reports `result` to each request.
        case finishAll([PendingRequest], HTTP2Answer)
        /// A request goes out again (counted).
        case retried
        /// Runs a dispatch round soon, from the loop (never inside a connection's callbacks).
        case scheduleDispatch
        /// Runs a dispatch round once the reconnect backoff is over.
        case scheduleDispatchAfter(seconds: Double)
        /// Opens a new connection.
        case connect(id: Int)
        /// The connection takes no new streams and closes once the open ones are answered.
        case drain(id: Int)
        /// Closes the connection now.
        case close(id: Int, reason: String)
        /// A connection attempt failed (logged and counted).
        case connectFailed(reason: String, failuresInARow: Int, retryIn: Double)
        /// A connection that worked closed.
        case connectionClosed(id: Int, reason: String, unanswered: Int)
        /// Every connection is closed after `shutdown`: the pool frees its events and reports done.
        case shutDown
        /// Asks the process's allowance for one more connection; `allowanceGranted` answers
        /// (at once, or once another connection of the process has closed).
        case requestAllowance
        /// Gives one connection's place in the allowance back (it closed, or a grant came too late).
        case releaseAllowance
        /// Asked to give a connection back, it has none to spare.
        case reclaimDeclined
    }

    struct Limits {
        var maxConnections: Int
        var maxAttempts: Int
        var maxConnectFailures: Int
        /// How long a request may wait for a usable connection, in seconds.
        var queueTimeout: Double
        var reconnect: Backoff
        /// A ready connection without an open stream for this long is closed, in seconds.
        var idleTimeout: Double = 300
    }

    private let limits: Limits
    private(set) var phase = Phase.running
    private(set) var connections: [Int: ConnectionState] = [:]
    private var waiting = RequestQueue()
    private var lastConnectionID = 0
    private var connectFailures = 0
    private var nextConnectAt = 0.0
    private var lastConnectError = "no connection yet"
    /// A `requestAllowance` is unanswered: no other is made until it is.
    private var awaitingAllowance = false
    /// The connections the in-flight window needs (`InFlightWindow.connections`), at most
    /// `maxConnections`, and how many of them may be in their handshake at once.
    private(set) var connectionTarget: Int
    private var openingAtOnce = 1

    init(limits: Limits) {
        self.limits = limits
        connectionTarget = limits.maxConnections
    }

    /// The window moved: up to `target` connections, `openingAtOnce` of them opening
    /// together (a window far beyond the open connections need not wait for each handshake).
    mutating func setConnectionTarget(_ target: Int, openingAtOnce: Int) {
        connectionTarget = min(max(1, target), limits.maxConnections)
        self.openingAtOnce = max(1, openingAtOnce)
    }

    var hasWaiting: Bool { !waiting.isEmpty }

    // MARK: requests

    mutating func enqueue(_ requests: [PendingRequest]) -> [Action] {
        guard phase == .running else { return [.finishAll(requests, .failed(.shutdown))] }
        for request in requests { waiting.append(request) }
        return [.scheduleDispatch]
    }

    /// A dispatch round: moves waiting requests onto the `freeStreams` streams the connections
    /// have room for (dropping expired ones), and opens a connection if requests are left.
    mutating func dispatch(freeStreams: Int, token: String?, now: Double, wallNow: Date) -> [Action] {
        var send: [PendingRequest] = []
        var expired: [PendingRequest] = []
        while send.count < freeStreams, let request = waiting.popFirst() {
            if Self.isExpired(request.message, wallNow: wallNow) {
                expired.append(request)
            } else {
                send.append(request)
            }
        }
        var actions: [Action] = []
        if !expired.isEmpty { actions.append(.finishAll(expired, .failed(.expired))) }
        if !send.isEmpty { actions.append(.send(send, token: token)) }
        return actions + connectIfNeeded(now: now)
    }

    /// The provider token could not be signed: nothing waiting can be sent.
    mutating func tokenUnavailable(_ reason: String) -> [Action] {
        failAllWaiting(.failed(.connectionFailed("cannot sign a provider token: \(reason)")))
    }

    /// Requests of a `send` that found no stream after all (the connections in `refusedBy`
    /// take no more streams): they go out next.
    mutating func notSent(_ requests: [PendingRequest], refusedBy: [Int], now: Double) -> [Action] {
        for id in refusedBy where connections[id] != nil { connections[id] = .draining }
        for request in requests.reversed() { waiting.prepend(request) }
        return waiting.isEmpty ? [] : connectIfNeeded(now: now)
    }

    // MARK: answers

    /// A response came for `request`.
    ///
    /// - Parameter sentTokenExpired: whether the provider token it went with has expired
    ///   (asked only for an `ExpiredProviderToken` answer).
    mutating func answered(_ request: PendingRequest, on id: Int, response: HTTP2Response, sentTokenExpired: () -> Bool) -> [Action] {
        connectFailures = 0
        nextConnectAt = 0
        let result = HTTP2Answer.response(response)
        if response.status == 403, !request.retriedWithNewToken, response.isExpiredProviderToken, sentTokenExpired() {
            // One retry with the fresh token; a second ExpiredProviderToken goes to the caller.
            request.retriedWithNewToken = true
            waiting.prepend(request)
            return [.scheduleDispatch]
        }
        // Only `Shutdown` is about this connection. `ServiceUnavailable` is about the service:
        // a new connection would not help, and APNs counts rapid reconnection as an attack
        // (20,000 devices at 30% 503s and 150 ms away: 140.5 s when every 503 did, 15.8 s now).
        if response.isShutdown, connections[id] != nil {
            connections[id] = .draining
            return [.drain(id: id), .finish(request, result), .scheduleDispatch]
        }
        return [.finish(request, result), .scheduleDispatch]
    }

    /// The server refused `request` for its content (not for the connection's state): it
    /// fails for good, never sent again.
    mutating func refused(_ request: PendingRequest, because reason: String) -> [Action] {
        [.finish(request, .failed(.refused(reason))), .scheduleDispatch]
    }

    mutating func timedOut(_ request: PendingRequest) -> [Action] {
        [.finish(request, .failed(.timedOut)), .scheduleDispatch]
    }

    /// Sends `request` again, unchanged (same apns-id and collapse id), unless it ran out of
    /// attempts or time.
    ///
    /// - Parameter countsAsAttempt: false for a stream the server refused (REFUSED_STREAM,
    ///   or past a GOAWAY's last stream) on a connection that answered others: such a
    ///   stream was never processed, and a server that sends GOAWAY every N streams would
    ///   otherwise use up the attempts of requests that merely queued behind others.
    mutating func retry(_ request: PendingRequest, because reason: String, countsAsAttempt: Bool, now: Double, wallNow: Date) -> [Action] {
        retryWithoutDispatch(request, because: reason, countsAsAttempt: countsAsAttempt, now: now, wallNow: wallNow)
            + [.scheduleDispatch]
    }

    private mutating func retryWithoutDispatch(
        _ request: PendingRequest, because reason: String, countsAsAttempt: Bool, now: Double, wallNow: Date
    ) -> [Action] {
        if countsAsAttempt { request.attempts += 1 }
        if phase != .running {
            return [.finish(request, .failed(.shutdown))]
        } else if request.attempts >= limits.maxAttempts {
            return [.finish(request, .failed(.connectionFailed("no answer after \(request.attempts) attempts: \(reason)")))]
        } else if Self.isExpired(request.message, wallNow: wallNow) {
            return [.finish(request, .failed(.expired))]
        }
        request.queuedAt = now
        waiting.prepend(request)
        return [.retried]
    }

    // MARK: connections

    /// The TLS handshake is done and the HTTP/2 session is up.
    mutating func connectionReady(_ id: Int) -> [Action] {
        if connections[id] == .connecting { connections[id] = .awaitingSettings }
        return [.scheduleDispatch]
    }

    /// The peer's SETTINGS arrived: the connection's room is known.
    mutating func settingsReceived(_ id: Int) -> [Action] {
        if connections[id] == .awaitingSettings { connections[id] = .ready }
        return [.scheduleDispatch]
    }

    mutating func goAwayReceived(_ id: Int) -> [Action] {
        if connections[id] == .ready || connections[id] == .awaitingSettings { connections[id] = .draining }
        return [.scheduleDispatch]
    }

    /// A connection closed, or an attempt failed before libevent took it.
    ///
    /// - Parameters:
    ///   - unanswered: its requests still on open streams, in the order they were sent.
    ///   - wasReady: whether the handshake had completed.
    ///   - answeredAny: whether any request got an answer on it: one that dies before that
    ///     counts as a failed attempt, so a server that takes the handshake and then hangs
    ///     up is retried with backoff too.
    ///   - random: a draw in 0...1 for the backoff's jitter.
    mutating func connectionClosed(
        _ id: Int, reason: String, unanswered: [PendingRequest], wasReady: Bool, answeredAny: Bool,
        now: Double, wallNow: Date, random: Double
    ) -> [Action] {
        // Each connection held a place in the process's allowance since `allowanceGranted`.
        var actions: [Action] = connections.removeValue(forKey: id) == nil ? [] : [.releaseAllowance]
        if !wasReady {
            actions += connectFailed(reason, now: now, random: random)
        } else if !answeredAny && !unanswered.isEmpty {
            actions += connectFailed("closed before answering anything: \(reason)", now: now, random: random)
        } else {
            actions.append(.connectionClosed(id: id, reason: reason, unanswered: unanswered.count))
        }
        for request in unanswered.reversed() {
            actions += retryWithoutDispatch(request, because: reason, countsAsAttempt: true, now: now, wallNow: wallNow)
        }
        actions.append(.scheduleDispatch)
        if phase == .shuttingDown, connections.isEmpty {
            phase = .shutDown
            actions.append(.shutDown)
        }
        return actions
    }

    private mutating func connectFailed(_ reason: String, now: Double, random: Double) -> [Action] {
        connectFailures += 1
        lastConnectError = reason
        let delay = Self.seconds(limits.reconnect.delay(retry: connectFailures, jitter: random))
        nextConnectAt = now + delay
        var actions: [Action] = [.connectFailed(reason: reason, failuresInARow: connectFailures, retryIn: delay)]
        if connectFailures >= limits.maxConnectFailures {
            actions += failAllWaiting(.failed(.connectionFailed(reason)))
        }
        return actions
    }

    /// Opens a connection when requests wait and no connection has or will soon have room,
    /// or says when it may (the backoff after failures).
    private mutating func connectIfNeeded(now: Double) -> [Action] {
        guard phase == .running, !waiting.isEmpty else { return [] }
        let live = connections.values.filter { $0 != .draining }
        // A connection still in its handshake, or waiting for the peer's SETTINGS, will soon
        // have room: open one more only when those are all known to be full (unless the
        // window wants several more at once).
        let coming = live.count { $0 == .connecting || $0 == .awaitingSettings }
        guard live.count < connectionTarget, coming < openingAtOnce, !awaitingAllowance else { return [] }
        guard now >= nextConnectAt else { return [.scheduleDispatchAfter(seconds: nextConnectAt - now)] }
        awaitingAllowance = true
        return [.requestAllowance]
    }

    // MARK: the process's allowance of connections

    /// The allowance granted a connection: it opens if requests still need one, else the
    /// place goes back.
    mutating func allowanceGranted() -> [Action] {
        awaitingAllowance = false
        let live = connections.values.filter { $0 != .draining }
        guard phase == .running, !waiting.isEmpty, live.count < connectionTarget else { return [.releaseAllowance] }
        lastConnectionID += 1
        connections[lastConnectionID] = .connecting
        return [.connect(id: lastConnectionID)]
    }

    /// The allowance asks for a connection back, for an app with fewer than its share.
    ///
    /// - Parameters:
    ///   - idleOnly: give only a connection without open streams (the asker is not owed
    ///     one from a busy app); otherwise the newest ready one drains if none is idle.
    ///   - idleSince: the connections without an open stream, and since when.
    mutating func reclaim(idleOnly: Bool, idleSince: [Int: Double]) -> [Action] {
        let ready = connections.filter { $0.value == .ready }.keys.sorted()
        if let id = ready.first(where: { idleSince[$0] != nil }) {
            connections[id] = .draining
            return [.close(id: id, reason: "given back for another app")]
        }
        guard !idleOnly, let id = ready.last else { return [.reclaimDeclined] }
        connections[id] = .draining
        return [.drain(id: id)]
    }

    // MARK: housekeeping

    /// Fails the requests that waited longer than `queueTimeout` for a connection, or expired,
    /// and closes the connections idle for `idleTimeout`.
    ///
    /// - Parameter idleSince: the connections without an open stream, and since when.
    mutating func tick(now: Double, wallNow: Date, idleSince: [Int: Double] = [:]) -> [Action] {
        var expired: [PendingRequest] = []
        var starved: [PendingRequest] = []
        _ = waiting.removeAll { request in
            if Self.isExpired(request.message, wallNow: wallNow) {
                expired.append(request)
            } else if now - request.queuedAt > limits.queueTimeout {
                starved.append(request)
            } else {
                return false
            }
            return true
        }
        var actions: [Action] = []
        if !expired.isEmpty { actions.append(.finishAll(expired, .failed(.expired))) }
        if !starved.isEmpty {
            actions.append(.finishAll(starved, .failed(.connectionFailed("no usable connection: \(lastConnectError)"))))
        }
        guard phase == .running, waiting.isEmpty else { return actions }
        for (id, since) in idleSince.sorted(by: { $0.key < $1.key })
        where connections[id] == .ready && now - since >= limits.idleTimeout {
            connections[id] = .draining
            actions.append(.close(id: id, reason: "idle for \(Int(limits.idleTimeout)) s"))
        }
        return actions
    }

    /// Fails what waits, lets open streams be answered and closes every connection; `shutDown`
    /// comes once the last one has closed.
    mutating func shutdown() -> [Action] {
        guard phase == .running else { return [] }
        phase = .shuttingDown
        var actions = failAllWaiting(.failed(.shutdown))
        for (id, state) in connections.sorted(by: { $0.key < $1.key }) {
            if state == .connecting {
                actions.append(.close(id: id, reason: "shutting down"))
            } else {
                connections[id] = .draining
                actions.append(.drain(id: id))
            }
        }
        if connections.isEmpty {
            phase = .shutDown
            actions.append(.shutDown)
        }
        return actions
    }

    private mutating func failAllWaiting(_ result: HTTP2Answer) -> [Action] {
        let all = waiting.removeAll { _ in true }
        return all.isEmpty ? [] : [.finishAll(all, result)]
    }

    /// Whether a retry would deliver the message after it expired (0 means "now or never").
    static func isExpired(_ message: any HTTP2Message, wallNow: Date) -> Bool {
        guard let expiration = message.expiration, expiration > 0 else { return false }
        return wallNow.timeIntervalSince1970 > Double(expiration)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
