import Foundation
@testable import PushPipeline
import RelayCore
import Testing
import WebhookClient

/// The webhook delivery's decisions, without I/O: retry, backoff and dead letters by an
/// injected time and jitter, and how leased events are cut into requests.
@Suite struct WebhookDecisionTests {
    let policy = WebhookRetryPolicy(backoff: Backoff(base: .seconds(10), cap: .seconds(3600)), horizon: .seconds(24 * 3600))
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func a2xxDeliversAndAnythingElseRetries() {
        for status in [200, 202, 204, 299] {
            #expect(policy.verdict(.answered(status: status), attempts: 1, start: start, now: start, jitter: 1) == .delivered)
        }
        for attempt: WebhookAttempt in [.answered(status: 500), .answered(status: 301), .answered(status: 404), .timedOut("answer"),
                                        .refused("private address"), .failed("connection refused")] {
            #expect(policy.verdict(attempt, attempts: 1, start: start, now: start, jitter: 1) == .retry(at: start.addingTimeInterval(10)), "\(attempt)")
        }
    }

    @Test func backoffDoublesWithJitterUpToTheCap() {
        let now = start.addingTimeInterval(100)
        #expect(policy.verdict(.answered(status: 503), attempts: 3, start: start, now: now, jitter: 1) == .retry(at: now.addingTimeInterval(40)))
        #expect(policy.verdict(.answered(status: 503), attempts: 3, start: start, now: now, jitter: 0) == .retry(at: now.addingTimeInterval(20)))
        #expect(policy.verdict(.answered(status: 503), attempts: 20, start: start, now: now, jitter: 1) == .retry(at: now.addingTimeInterval(3600)))
    }

    @Test func retriesEndAtTheHorizonWithADeadLetter() {
        // Attempts spaced by the backoff, on an injected clock: the last retry lands inside 24 h.
        var now = start
        var attempts = 0
        var verdict = WebhookRetryPolicy.Verdict.delivered
        repeat {
            attempts += 1
            verdict = policy.verdict(.timedOut("connect"), attempts: attempts, start: start, now: now, jitter: 1)
            if case .retry(let at) = verdict {
                #expect(at <= start.addingTimeInterval(24 * 3600))
                now = at
            }
        } while verdict != .dead && attempts < 1000
        #expect(verdict == .dead)
        #expect(attempts > 20 && attempts < 40, "\(attempts)")
        #expect(now > start.addingTimeInterval(23 * 3600))
        // An admin's retry starts a new horizon.
        #expect(policy.verdict(.timedOut("connect"), attempts: attempts + 1, start: now, now: now, jitter: 1) != .dead)
    }

    func event(_ id: Int64, app: Int64, payload: String = #"{"event":"message.done"}"#) -> LeasedWebhookEvent {
        LeasedWebhookEvent(id: id, appID: app, payload: payload, attempts: 0, start: start,
                           target: WebhookTarget(appKey: "app\(app)", url: "https://example.com/\(app)", sealedSecret: []))
    }

    @Test func eventsAreCutIntoRequestsPerAppBoundedInCountAndBytes() {
        let events = [event(1, app: 1), event(2, app: 2), event(3, app: 1), event(4, app: 1), event(5, app: 2)]
        let batches = WebhookRequestBatch.cut(events, maxEvents: 2, maxBytes: 1 << 20)
        #expect(batches.map { $0.events.map(\.id) } == [[1, 3], [2, 5], [4]])
        #expect(batches.map(\.target.appKey) == ["app1", "app2", "app1"])

        let big = String(repeating: "x", count: 100)
        let sized = WebhookRequestBatch.cut([event(1, app: 1, payload: #""\#(big)""#), event(2, app: 1, payload: #""\#(big)""#)], maxEvents: 10, maxBytes: 150)
        #expect(sized.map { $0.events.map(\.id) } == [[1], [2]])
    }

    /// A push's callback URL is a target of its own: its events never share a request with
    /// the app's webhook's, nor with another URL's.
    @Test func eventsAreCutPerAppAndURL() {
        func to(_ id: Int64, _ url: String) -> LeasedWebhookEvent {
            var leased = event(id, app: 1)
            leased.target.url = url
            return leased
        }
        let events = [to(1, "https://example.com/1"), to(2, "https://cb.example.com/a"), to(3, "https://example.com/1"),
                      to(4, "https://cb.example.com/b"), to(5, "https://cb.example.com/a")]
        let batches = WebhookRequestBatch.cut(events, maxEvents: 10, maxBytes: 1 << 20)
        #expect(batches.map { $0.events.map(\.id) } == [[1, 3], [2, 5], [4]])
        #expect(batches.map(\.target.url) == ["https://example.com/1", "https://cb.example.com/a", "https://cb.example.com/b"])
    }

    @Test func theBodyCarriesTheStoredEventsWithTheirIDs() throws {
        let batch = WebhookRequestBatch(target: event(1, app: 7).target,
                                        events: [event(1, app: 7, payload: #"{"a": 1}"#), event(2, app: 7, payload: #"{"b": [2]}"#), event(3, app: 7, payload: "{}")])
        let body = batch.body()
        #expect(String(decoding: body, as: UTF8.self) == #"{"app_key":"app7","events":[{"id":"1","a": 1},{"id":"2","b": [2]},{"id":"3"}]}"#)
        #expect(try JSONSerialization.jsonObject(with: Data(body)) is [String: Any])
    }
}
