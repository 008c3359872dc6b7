import Foundation
import RelayCore
import Testing
@testable import APNSClient

/// `ConnectionPoolStateMachine` without sockets or timers: each of the pool's paths (dispatch,
/// answered, retry, connection closed, connect failed, tick expiry, backoff, shutdown) as
/// events in and actions out, with time and the backoff's random draw passed in.
@Suite struct ConnectionPoolStateMachineTests {
    private static let wallNow = Date(timeIntervalSince1970: 1_800_000_000)
    private let batch = SendBatch(count: 64, limiter: AsyncLimiter(limit: 64))

    private func machine(maxConnections: Int = 2, maxAttempts: Int = 3, maxConnectFailures: Int = 3) -> ConnectionPoolStateMachine {
        ConnectionPoolStateMachine(limits: .init(
            maxConnections: maxConnections, maxAttempts: maxAttempts, maxConnectFailures: maxConnectFailures,
            queueTimeout: 60, reconnect: Backoff(base: .milliseconds(100), cap: .seconds(1)), idleTimeout: 300))
    }

    /// A request named by its device token; `expiration` in seconds after `wallNow`.
    private func request(_ name: String, expiresIn: Int? = nil, queuedAt: Double = 0) -> PendingRequest {
        var notification = APNSNotification(deviceToken: name, topic: "com.example.app", payload: Array("{}".utf8))
        notification.expiration = expiresIn.map { Int(Self.wallNow.timeIntervalSince1970) + $0 }
        return PendingRequest(message: notification, recipient: .batch(batch, index: 0), queuedAt: queuedAt)
    }

    /// The actions, written out with requests by name, so a test reads as the pool's story.
    private func describe(_ actions: [ConnectionPoolStateMachine.Action]) -> [String] {
        func names(_ requests: [PendingRequest]) -> String {
            requests.map(\.token).joined(separator: ",")
        }
        return actions.map { action in
            switch action {
            case let .send(requests, token): "send \(names(requests)) token=\(token ?? "-")"
            case let .finish(request, result): "finish \(names([request])) \(result)"
            case let .finishAll(requests, result): "finish \(names(requests)) \(result)"
            case .retried: "retried"
            case .scheduleDispatch: "dispatch"
            case let .scheduleDispatchAfter(seconds): "dispatch after \(String(format: "%.3f", seconds))"
            case let .connect(id): "connect \(id)"
            case let .drain(id): "drain \(id)"
            case let .close(id, reason): "close \(id) \(reason)"
            case let .connectFailed(reason, failures, retryIn): "connect failed \(reason) #\(failures) retry in \(String(format: "%.3f", retryIn))"
            case let .connectionClosed(id, reason, unanswered): "closed \(id) \(reason) unanswered=\(unanswered)"
            case .shutDown: "shut down"
            case .requestAllowance: "request allowance"
            case .releaseAllowance: "release"
            case .reclaimDeclined: "reclaim declined"
            }
        }
    }

    /// A machine with connection 1 open and its SETTINGS in.
    private func machineWithReadyConnection(maxConnections: Int = 2, maxAttempts: Int = 3) -> ConnectionPoolStateMachine {
        var pool = machine(maxConnections: maxConnections, maxAttempts: maxAttempts)
        _ = pool.enqueue([request("warm-up")])
        _ = pool.dispatchGranted(freeStreams: 0, token: nil, now: 0, wallNow: Self.wallNow)
        _ = pool.connectionReady(1)
        _ = pool.settingsReceived(1)
        _ = pool.dispatchGranted(freeStreams: 1, token: nil, now: 0, wallNow: Self.wallNow)
        return pool
    }

    // MARK: dispatch

    @Test func waitingRequestsOpenOneConnectionThenGoOutOnItsFreeStreams() {
        var pool = machine()
        #expect(describe(pool.enqueue([request("a"), request("b"), request("c")])) == ["dispatch"])
        #expect(describe(pool.dispatchGranted(freeStreams: 0, token: nil, now: 0, wallNow: Self.wallNow)) == ["connect 1"])
        // Still in its handshake: it will soon have room, so no second connection.
        #expect(describe(pool.dispatchGranted(freeStreams: 0, token: nil, now: 0, wallNow: Self.wallNow)) == [])
        #expect(describe(pool.connectionReady(1)) == ["dispatch"])
        #expect(pool.connections[1] == .awaitingSettings)
        #expect(describe(pool.dispatchGranted(freeStreams: 1, token: "jwt", now: 0, wallNow: Self.wallNow)) == ["send a token=jwt"])
        #expect(describe(pool.settingsReceived(1)) == ["dispatch"])
        // Full and known to be: a second connection, up to maxConnections.
        #expect(describe(pool.dispatchGranted(freeStreams: 1, token: "jwt", now: 0, wallNow: Self.wallNow)) == ["send b token=jwt", "connect 2"])
        #expect(describe(pool.dispatchGranted(freeStreams: 5, token: "jwt", now: 0, wallNow: Self.wallNow)) == ["send c token=jwt"])
        #expect(!pool.hasWaiting)
    }

    @Test func noConnectionBeyondMaxConnections() {
        var pool = machineWithReadyConnection(maxConnections: 1)
        _ = pool.enqueue([request("a")])
        #expect(describe(pool.dispatchGranted(freeStreams: 0, token: nil, now: 0, wallNow: Self.wallNow)) == [])
        // A draining connection no longer counts: one more may open.
        _ = pool.goAwayReceived(1)
        #expect(describe(pool.dispatchGranted(freeStreams: 0, token: nil, now: 0, wallNow: Self.wallNow)) == ["connect 2"])
    }

    @Test func theWindowsTargetBoundsConnectionsAndOpensSeveralAtOnce() {
        var pool = machineWithReadyConnection(maxConnections: 8)
        pool.setConnectionTarget(1, openingAtOnce: 1)
        _ = pool.enqueue([request("a")])
        // Full, but the window needs no second connection: the request waits for a stream.
        #expect(describe(pool.dispatchGranted(freeStreams: 0, token: nil, now: 0, wallNow: Self.wallNow)) == [])
        // The round trip limits: the window wants 4, three of them may open together.
        pool.setConnectionTarget(4, openingAtOnce: 3)
        var opened: [String] = []
        for _ in 0..<5 { opened += describe(pool.dispatchGranted(freeStreams: 0, token: nil, now: 0, wallNow: Self.wallNow)) }
        #expect(opened == ["connect 2", "connect 3", "connect 4"])
        pool.setConnectionTarget(100, openingAtOnce: 100)
        #expect(pool.connectionTarget == 8, "never beyond maxConnections")
    }

    @Test func expiredRequestsFailInsteadOfTakingAStream() {
        var pool = machineWithReadyConnection()
        _ = pool.enqueue([request("old", expiresIn: -1), request("new", expiresIn: 60), request("now", expiresIn: 0)])
        #expect(describe(pool.dispatchGranted(freeStreams: 2, token: nil, now: 0, wallNow: Self.wallNow))
            == ["finish old \(HTTP2Answer.failed(.expired))", "send new,now token=-"])
    }

    @Test func requestsAConnectionRefusedGoOutNextAndItDrains() {
        var pool = machineWithReadyConnection(maxConnections: 1)
        _ = pool.enqueue([request("a"), request("b"), request("c")])
        _ = pool.dispatchGranted(freeStreams: 2, token: nil, now: 0, wallNow: Self.wallNow)
        let notSent = pool.notSent([request("a2"), request("b2")], refusedBy: [1], now: 0)
        #expect(describe(pool.granting(notSent)) == ["connect 2"])
        #expect(pool.connections[1] == .draining)
        _ = pool.connectionReady(2)
        _ = pool.settingsReceived(2)
        #expect(describe(pool.dispatchGranted(freeStreams: 3, token: nil, now: 0, wallNow: Self.wallNow)) == ["send a2,b2,c token=-"])
    }

    @Test func anUnsignableTokenFailsWhatWaits() {
        var pool = machine()
        _ = pool.enqueue([request("a"), request("b")])
        #expect(describe(pool.tokenUnavailable("bad key"))
            == ["finish a,b \(HTTP2Answer.failed(.connectionFailed("cannot sign a provider token: bad key")))"])
        #expect(!pool.hasWaiting)
    }

    // MARK: answered

    @Test func answersAreReportedAndA503ShutdownDrainsItsConnection() {
        var pool = machineWithReadyConnection()
        let accepted = HTTP2Response(status: 200)
        #expect(describe(pool.answered(request("a"), on: 1, response: accepted) { false })
            == ["finish a \(HTTP2Answer.response(accepted))", "dispatch"])
        let unavailable = HTTP2Response(status: 503, body: Array(#"{"reason":"ServiceUnavailable"}"#.utf8))
        #expect(describe(pool.answered(request("b"), on: 1, response: unavailable) { false })
            == ["finish b \(HTTP2Answer.response(unavailable))", "dispatch"])
        #expect(pool.connections[1] != .draining)
        let shutdown = HTTP2Response(status: 503, body: Array(#"{"reason":"Shutdown"}"#.utf8))
        #expect(describe(pool.answered(request("c"), on: 1, response: shutdown) { false })
            == ["drain 1", "finish c \(HTTP2Answer.response(shutdown))", "dispatch"])
        #expect(pool.connections[1] == .draining)
    }

    @Test func anExpiredProviderTokenIsRetriedOnceWhenTheTokenDidExpire() {
        var pool = machineWithReadyConnection()
        let expired = HTTP2Response(status: 403, body: Array(#"{"reason":"ExpiredProviderToken"}"#.utf8))
        let a = request("a")
        // The token it went with is still fresh: the answer goes to the caller.
        #expect(describe(pool.answered(a, on: 1, response: expired) { false }) == ["finish a \(HTTP2Answer.response(expired))", "dispatch"])
        let b = request("b")
        #expect(describe(pool.answered(b, on: 1, response: expired) { true }) == ["dispatch"])
        #expect(b.retriedWithNewToken)
        #expect(describe(pool.dispatchGranted(freeStreams: 1, token: "fresh", now: 0, wallNow: Self.wallNow)) == ["send b token=fresh"])
        #expect(describe(pool.answered(b, on: 1, response: expired) { true }) == ["finish b \(HTTP2Answer.response(expired))", "dispatch"])
    }

    @Test func refusedAndTimedOutRequestsFailForGood() {
        var pool = machineWithReadyConnection()
        #expect(describe(pool.refused(request("a"), because: "malformed"))
            == ["finish a \(HTTP2Answer.failed(.refused("malformed")))", "dispatch"])
        #expect(describe(pool.timedOut(request("b"))) == ["finish b \(HTTP2Answer.failed(.timedOut))", "dispatch"])
    }

    // MARK: retry

    @Test func aRetryGoesOutFirstUntilItsAttemptsRunOut() {
        var pool = machineWithReadyConnection(maxConnections: 1, maxAttempts: 2)
        _ = pool.enqueue([request("queued")])
        let a = request("a")
        #expect(describe(pool.retry(a, because: "stream reset (2)", countsAsAttempt: true, now: 7, wallNow: Self.wallNow))
            == ["retried", "dispatch"])
        #expect(a.attempts == 1)
        #expect(a.queuedAt == 7)
        #expect(describe(pool.dispatchGranted(freeStreams: 1, token: nil, now: 7, wallNow: Self.wallNow)) == ["send a token=-"])
        // A refused stream on a connection that answered others is not an attempt.
        #expect(describe(pool.retry(a, because: "stream refused", countsAsAttempt: false, now: 8, wallNow: Self.wallNow))
            == ["retried", "dispatch"])
        #expect(a.attempts == 1)
        _ = pool.dispatchGranted(freeStreams: 1, token: nil, now: 8, wallNow: Self.wallNow)
        #expect(describe(pool.retry(a, because: "stream reset (2)", countsAsAttempt: true, now: 9, wallNow: Self.wallNow))
            == ["finish a \(HTTP2Answer.failed(.connectionFailed("no answer after 2 attempts: stream reset (2)")))", "dispatch"])
    }

    @Test func anExpiredRequestIsNotRetried() {
        var pool = machineWithReadyConnection()
        #expect(describe(pool.retry(request("a", expiresIn: -1), because: "reset", countsAsAttempt: true, now: 0, wallNow: Self.wallNow))
            == ["finish a \(HTTP2Answer.failed(.expired))", "dispatch"])
    }

    // MARK: connection closed, connect failed, backoff

    @Test func aConnectionThatWorkedClosesAndItsUnansweredRequestsGoOutAgainInOrder() {
        var pool = machineWithReadyConnection()
        let actions = pool.connectionClosed(1, reason: "closed by peer", unanswered: [request("a"), request("b")], wasReady: true,
                                            answeredAny: true, now: 0, wallNow: Self.wallNow, random: 1)
        #expect(describe(actions) == ["release", "closed 1 closed by peer unanswered=2", "retried", "retried", "dispatch"])
        #expect(pool.connections.isEmpty)
        #expect(describe(pool.dispatchGranted(freeStreams: 0, token: nil, now: 0, wallNow: Self.wallNow)) == ["connect 2"])
        _ = pool.connectionReady(2)
        _ = pool.settingsReceived(2)
        #expect(describe(pool.dispatchGranted(freeStreams: 2, token: nil, now: 0, wallNow: Self.wallNow)) == ["send a,b token=-"])
    }

    @Test func aConnectionThatDiesBeforeAnsweringCountsAsAFailedAttempt() {
        var pool = machineWithReadyConnection()
        let actions = pool.connectionClosed(1, reason: "closed by peer", unanswered: [request("a")], wasReady: true,
                                            answeredAny: false, now: 0, wallNow: Self.wallNow, random: 1)
        #expect(describe(actions) == [
            "release", "connect failed closed before answering anything: closed by peer #1 retry in 0.100", "retried", "dispatch",
        ])
    }

    @Test func failedConnectsBackOffExponentiallyThenFailWhatWaits() {
        var pool = machine(maxConnectFailures: 3)
        _ = pool.enqueue([request("a")])
        #expect(describe(pool.dispatchGranted(freeStreams: 0, token: nil, now: 10, wallNow: Self.wallNow)) == ["connect 1"])
        #expect(describe(pool.connectionClosed(1, reason: "refused", unanswered: [], wasReady: false, answeredAny: false,
                                               now: 10, wallNow: Self.wallNow, random: 1))
            == ["release", "connect failed refused #1 retry in 0.100", "dispatch"])
        // Within the backoff: a timer, not a connection.
        #expect(describe(pool.dispatchGranted(freeStreams: 0, token: nil, now: 10.05, wallNow: Self.wallNow)) == ["dispatch after 0.050"])
        #expect(describe(pool.dispatchGranted(freeStreams: 0, token: nil, now: 10.2, wallNow: Self.wallNow)) == ["connect 2"])
        // The second failure waits twice as long; the random draw halves it at most.
        #expect(describe(pool.connectionClosed(2, reason: "refused", unanswered: [], wasReady: false, answeredAny: false,
                                               now: 11, wallNow: Self.wallNow, random: 0))
            == ["release", "connect failed refused #2 retry in 0.100", "dispatch"])
        #expect(describe(pool.dispatchGranted(freeStreams: 0, token: nil, now: 11.2, wallNow: Self.wallNow)) == ["connect 3"])
        #expect(describe(pool.connectionClosed(3, reason: "refused", unanswered: [], wasReady: false, answeredAny: false,
                                               now: 12, wallNow: Self.wallNow, random: 1))
            == ["release", "connect failed refused #3 retry in 0.400",
                "finish a \(HTTP2Answer.failed(.connectionFailed("refused")))", "dispatch"])
    }

    @Test func anAnswerResetsTheBackoff() {
        var pool = machine()
        _ = pool.enqueue([request("a")])
        _ = pool.dispatchGranted(freeStreams: 0, token: nil, now: 0, wallNow: Self.wallNow)
        _ = pool.connectionClosed(1, reason: "refused", unanswered: [], wasReady: false, answeredAny: false,
                                  now: 0, wallNow: Self.wallNow, random: 1)
        _ = pool.dispatchGranted(freeStreams: 0, token: nil, now: 0.2, wallNow: Self.wallNow)
        _ = pool.connectionReady(2)
        _ = pool.answered(request("b"), on: 2, response: HTTP2Response(status: 200)) { false }
        _ = pool.connectionClosed(2, reason: "closed by peer", unanswered: [], wasReady: true, answeredAny: true,
                                  now: 0.3, wallNow: Self.wallNow, random: 1)
        // Connection 3 may open at once, and its failure is the first in a row again.
        #expect(describe(pool.dispatchGranted(freeStreams: 0, token: nil, now: 0.3, wallNow: Self.wallNow)) == ["connect 3"])
        #expect(describe(pool.connectionClosed(3, reason: "refused", unanswered: [], wasReady: false, answeredAny: false,
                                               now: 0.4, wallNow: Self.wallNow, random: 1))
            == ["release", "connect failed refused #1 retry in 0.100", "dispatch"])
    }

    // MARK: tick

    @Test func tickFailsWhatWaitedTooLongOrExpired() {
        var pool = machine()
        _ = pool.enqueue([request("fresh", queuedAt: 50), request("starved", queuedAt: 0), request("expired", expiresIn: -1, queuedAt: 50)])
        _ = pool.dispatchGranted(freeStreams: 0, token: nil, now: 0, wallNow: Self.wallNow)
        _ = pool.connectionClosed(1, reason: "refused", unanswered: [], wasReady: false, answeredAny: false,
                                  now: 0, wallNow: Self.wallNow, random: 1)
        #expect(describe(pool.tick(now: 61, wallNow: Self.wallNow)) == [
            "finish expired \(HTTP2Answer.failed(.expired))",
            "finish starved \(HTTP2Answer.failed(.connectionFailed("no usable connection: refused")))",
        ])
        #expect(pool.hasWaiting)
        #expect(describe(pool.tick(now: 61, wallNow: Self.wallNow)) == [])
    }

    // MARK: idle connections, the process's allowance

    @Test func aConnectionIdleForTheTimeoutClosesAndTheNextRequestOpensAnother() {
        var pool = machineWithReadyConnection()
        // Idle since 10 s (its last answer): kept until 310 s, closed then.
        #expect(describe(pool.tick(now: 309.9, wallNow: Self.wallNow, idleSince: [1: 10])) == [])
        #expect(describe(pool.tick(now: 310, wallNow: Self.wallNow, idleSince: [1: 10])) == ["close 1 idle for 300 s"])
        #expect(pool.connections[1] == .draining, "takes no request while it closes")
        #expect(describe(pool.connectionClosed(1, reason: "idle for 300 s", unanswered: [], wasReady: true, answeredAny: true,
                                               now: 310, wallNow: Self.wallNow, random: 1))
            == ["release", "closed 1 idle for 300 s unanswered=0", "dispatch"])
        // Work again: a connection on demand, after asking the allowance, with no backoff.
        _ = pool.enqueue([request("a")])
        #expect(describe(pool.dispatch(freeStreams: 0, token: nil, now: 400, wallNow: Self.wallNow)) == ["request allowance"])
        #expect(describe(pool.dispatch(freeStreams: 0, token: nil, now: 400, wallNow: Self.wallNow)) == [], "asked once")
        #expect(describe(pool.allowanceGranted()) == ["connect 2"])
    }

    @Test func aBusyConnectionOrOneWithRequestsWaitingIsNotIdle() {
        var pool = machineWithReadyConnection()
        // Not in idleSince: it has open streams, however long ago it opened.
        #expect(describe(pool.tick(now: 10_000, wallNow: Self.wallNow, idleSince: [:])) == [])
        _ = pool.enqueue([request("a", queuedAt: 9_999)])
        #expect(describe(pool.tick(now: 10_000, wallNow: Self.wallNow, idleSince: [1: 0])) == [])
    }

    @Test func aGrantThatComesTooLateGoesBack() {
        var pool = machine()
        _ = pool.enqueue([request("a", queuedAt: 0)])
        #expect(describe(pool.dispatch(freeStreams: 0, token: nil, now: 0, wallNow: Self.wallNow)) == ["request allowance"])
        // The request waited past the queue timeout for a place.
        _ = pool.tick(now: 61, wallNow: Self.wallNow)
        #expect(describe(pool.allowanceGranted()) == ["release"])
        #expect(pool.connections.isEmpty)
    }

    @Test func aReclaimClosesAnIdleConnectionOrDrainsABusyOneOrDeclines() {
        var pool = machineWithReadyConnection()
        #expect(describe(pool.reclaim(idleOnly: true, idleSince: [:])) == ["reclaim declined"])
        #expect(describe(pool.reclaim(idleOnly: true, idleSince: [1: 5])) == ["close 1 given back for another app"])
        var busy = machineWithReadyConnection()
        #expect(describe(busy.reclaim(idleOnly: false, idleSince: [:])) == ["drain 1"])
        #expect(busy.connections[1] == .draining)
        #expect(describe(busy.reclaim(idleOnly: false, idleSince: [:])) == ["reclaim declined"], "nothing ready is left")
    }

    // MARK: shutdown

    @Test func shutdownFailsWhatWaitsDrainsWhatIsOpenAndEndsWithTheLastConnection() {
        var pool = machineWithReadyConnection()
        _ = pool.enqueue([request("a")])
        _ = pool.dispatchGranted(freeStreams: 0, token: nil, now: 0, wallNow: Self.wallNow)
        _ = pool.goAwayReceived(1)
        _ = pool.dispatchGranted(freeStreams: 0, token: nil, now: 0, wallNow: Self.wallNow)
        #expect(pool.connections == [1: .draining, 2: .connecting])
        #expect(describe(pool.shutdown()) == [
            "finish a \(HTTP2Answer.failed(.shutdown))", "drain 1", "close 2 shutting down",
        ])
        #expect(describe(pool.enqueue([request("late")])) == ["finish late \(HTTP2Answer.failed(.shutdown))"])
        let closed = pool.connectionClosed(1, reason: "drained", unanswered: [request("b")], wasReady: true, answeredAny: true,
                                           now: 0, wallNow: Self.wallNow, random: 1)
        #expect(describe(closed) == [
            "release", "closed 1 drained unanswered=1", "finish b \(HTTP2Answer.failed(.shutdown))", "dispatch",
        ])
        #expect(describe(pool.connectionClosed(2, reason: "shutting down", unanswered: [], wasReady: false, answeredAny: false,
                                               now: 0, wallNow: Self.wallNow, random: 1)).last == "shut down")
        #expect(pool.phase == .shutDown)
    }

    @Test func shutdownWithoutConnectionsEndsAtOnce() {
        var pool = machine()
        #expect(describe(pool.shutdown()) == ["shut down"])
        #expect(describe(pool.shutdown()) == [])
    }
}

extension ConnectionPoolStateMachine {
    /// `dispatch` with the process's allowance granting at once (no bound), as the pool runs it.
    mutating func dispatchGranted(freeStreams: Int, token: String?, now: Double, wallNow: Date) -> [Action] {
        granting(dispatch(freeStreams: freeStreams, token: token, now: now, wallNow: wallNow))
    }

    /// `actions` with a `requestAllowance` granted at once.
    mutating func granting(_ actions: [Action]) -> [Action] {
        var granted: [Action] = []
        for action in actions {
            if case .requestAllowance = action { granted += allowanceGranted() } else { granted.append(action) }
        }
        return granted
    }
}
