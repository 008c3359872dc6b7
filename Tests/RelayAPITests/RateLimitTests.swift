import Foundation
import Synchronization
import Testing
import TestSupport
@testable import RelayAPI

/// The fixed-window counter, driven by a hand-set clock.
@Suite struct FixedWindowCounterTests {
    @Test func countsWithinAWindowAndRefusesPastTheLimit() {
        var counter = FixedWindowCounter()
        let start: Int64 = 1_800_000_000 - 1_800_000_000 % 60  // a window boundary
        for n in 1...3 {
            let decision = counter.take("a", limit: 3, now: start + 10)
            #expect(decision == .init(allowed: true, limit: 3, remaining: 3 - n, resetSeconds: 50))
        }
        #expect(counter.take("a", limit: 3, now: start + 59) == .init(allowed: false, limit: 3, remaining: 0, resetSeconds: 1))
        #expect(counter.take("b", limit: 3, now: start + 59).allowed, "keys are counted apart")
        let next = counter.take("a", limit: 3, now: start + 60)
        #expect(next == .init(allowed: true, limit: 3, remaining: 2, resetSeconds: 60), "a new window starts afresh")
    }

    @Test func aWindowStartedByAnotherNodesClockStillResetsWithinTheWindow() {
        let start: Int64 = 1_800_000_000 - 1_800_000_000 % 60
        let ahead = FixedWindowCounter.decision(count: 3, limit: 2, windowStart: start + 60, windowSeconds: 60, now: start + 59)
        #expect(ahead == .init(allowed: false, limit: 2, remaining: 0, resetSeconds: 60))
        let behind = FixedWindowCounter.decision(count: 1, limit: 2, windowStart: start - 60, windowSeconds: 60, now: start + 5)
        #expect(behind == .init(allowed: true, limit: 2, remaining: 1, resetSeconds: 1))
    }

    @Test func checkDoesNotCount() {
        var counter = FixedWindowCounter()
        let now: Int64 = 1_800_000_000
        #expect(counter.check("ip", limit: 2, now: now).allowed)
        _ = counter.take("ip", limit: 2, now: now)
        #expect(counter.check("ip", limit: 2, now: now).allowed)
        _ = counter.take("ip", limit: 2, now: now)
        #expect(!counter.check("ip", limit: 2, now: now).allowed)
        #expect(!counter.check("ip", limit: 2, now: now).allowed, "checking twice counts nothing")
        #expect(counter.check("ip", limit: 2, now: now + 60).allowed)
    }

    @Test func memoryIsBoundedAndFreshKeysPastTheBoundShareOneCounter() {
        var counter = FixedWindowCounter(capacity: 4)
        let now: Int64 = 1_800_000_020
        for key in 0..<4 { _ = counter.take("k\(key)", limit: 2, now: now) }
        #expect(counter.trackedKeys == 4)
        #expect(counter.take("x", limit: 2, now: now).allowed)
        #expect(counter.take("y", limit: 2, now: now).allowed)
        #expect(!counter.take("z", limit: 2, now: now).allowed, "past capacity, new keys share the overflow counter")
        #expect(counter.trackedKeys == 5)
        // In the next window the ended counters are swept and new keys get their own again.
        #expect(counter.take("fresh", limit: 1, now: now + 60).allowed)
        #expect(counter.trackedKeys == 1)
    }
}

/// One subject's concurrent counts on a node, coalesced into one upsert at a time.
@Suite struct CountCoalescerTests {
    @Test func requestsArrivingDuringACountGoTogetherInTheNext() {
        var coalescer = CountCoalescer<Int>()
        #expect(coalescer.arrive("a", 1) == [1], "the first request is counted at once")
        #expect(coalescer.arrive("a", 2) == nil)
        #expect(coalescer.arrive("b", 10) == [10], "another subject is not held up")
        #expect(coalescer.arrive("a", 3) == nil)
        #expect(coalescer.finished("a") == [2, 3], "those that waited, in arrival order, in one batch")
        #expect(coalescer.arrive("a", 4) == nil, "a batch is in flight again")
        #expect(coalescer.finished("a") == [4])
        #expect(coalescer.finished("a") == nil, "nobody waited: idle")
        #expect(coalescer.arrive("a", 5) == [5], "an idle subject's next request is counted at once")
        #expect(coalescer.finished("b") == nil)
    }
}

/// The limits as clients see them, through the live relay.
@Suite struct RateLimitAPITests {
    /// Two API nodes on one database share an app's limit: of concurrent requests spread
    /// over both, exactly the limit are answered, the rest 429, until the next window.
    @Test func nodesOnOneDatabaseShareAnAppsLimit() async throws {
        let limits = RateLimitSettings(defaultPerMinute: 1000, authFailuresPerMinute: 60)
        // A hand-set clock, 10 s into a window, so no window boundary falls between requests.
        let now = Mutex(Date(timeIntervalSince1970: TimeInterval(1_800_000_000 - 1_800_000_000 % 60 + 10)))
        let clock: @Sendable () -> Date = { now.withLock { $0 } }
        try await RelayHarness.with(rateLimits: limits, tune: { $0.clock = clock }) { first in
            let second = try await RelayHarness.start(connectionString: first.databaseURL, rateLimits: limits, tune: { $0.clock = clock })
            try await withStopping(second, stop: { await $0.stop() }) { second in
                let app = try await first.createApp()
                #expect(try await second.request("PUT", "/admin/v1/apps/\(app.key)/rate_limit", json: ["per_minute": 10]).status == 200)
                let replies = try await withThrowingTaskGroup(of: RelayHarness.Reply.self) { group in
                    for index in 0..<40 {
                        let node = index % 2 == 0 ? first : second
                        group.addTask { try await node.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret)) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let allowed = replies.filter { $0.status == 200 }
                #expect(allowed.count == 10, "\(replies.map(\.status))")
                #expect(Set(allowed.compactMap { $0.headers["x-rate-limit-remaining"] }) == Set((0..<10).map(String.init)),
                        "each allowed request was told its own place in the shared count")
                #expect(replies.filter { $0.status == 429 }.count == 30)
                #expect(replies.allSatisfy { $0.status == 200 || ($0.errorCode == 2002 && $0.headers["x-rate-limit-remaining"] == "0") })
                #expect(replies.allSatisfy { $0.headers["x-rate-limit-limit"] == "10" && $0.headers["x-rate-limit-reset"] == "50" })
                for node in [first, second] {
                    #expect(try await node.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret)).status == 429)
                }
                // The next window starts afresh on both nodes.
                now.withLock { $0 += 60 }
                let next = try await second.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret))
                #expect(next.status == 200 && next.headers["x-rate-limit-remaining"] == "9")
                let rows = try await first.pool.query("SELECT count(*) AS n FROM request_counts")
                #expect(try rows[0].int("n") == 1, "one counter row per app, whatever the window")
            }
        }
    }

    @Test func everyV3ResponseCarriesTheHeadersAndAppsGetTheirOwnLimit() async throws {
        try await RelayHarness.with(rateLimits: RateLimitSettings(defaultPerMinute: 1000, authFailuresPerMinute: 60)) { relay in
            let app = try await relay.createApp()
            let other = try await relay.createApp("other")
            let first = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret))
            #expect(first.status == 200)
            #expect(first.headers["x-rate-limit-limit"] == "1000")
            #expect(first.headers["x-rate-limit-quota"] == "1000")
            #expect(first.headers["x-rate-limit-remaining"] == "999")
            let reset = Int(first.headers["x-rate-limit-reset"] ?? "") ?? 0
            #expect((1...60).contains(reset))
            let refused = try await relay.request("GET", "/v3/devices/nosuchdevice", auth: .basic(app.key, app.secret))
            #expect(refused.status >= 400 && refused.headers["x-rate-limit-remaining"] == "998", "errors carry the headers too")

            let limited = try await relay.createApp("limited")
            let set = try await relay.request("PUT", "/admin/v1/apps/\(limited.key)/rate_limit", json: ["per_minute": 2])
            #expect(set.status == 200 && set.json["per_minute"] as? Int == 2 && set.json["default"] as? Bool == false)
            var statuses: [Int] = []
            var last: RelayHarness.Reply?
            for _ in 0..<4 {
                let reply = try await relay.request("GET", "/v3/push/cid", auth: .basic(limited.key, limited.secret))
                statuses.append(reply.status)
                last = reply
            }
            // The counter is per minute: a window boundary between requests may allow one more.
            #expect(statuses.filter { $0 == 429 }.count >= 1 && statuses.first == 200)
            #expect(last?.status == 429 && last?.errorCode == 2002)
            #expect(last?.headers["x-rate-limit-limit"] == "2" && last?.headers["x-rate-limit-remaining"] == "0")
            let unaffected = try await relay.request("GET", "/v3/push/cid", auth: .basic(other.key, other.secret))
            #expect(unaffected.status == 200, "one app's limit never throttles another")

            let reset2 = try await relay.request("PUT", "/admin/v1/apps/\(limited.key)/rate_limit", json: ["per_minute": NSNull()])
            #expect(reset2.status == 200 && reset2.json["per_minute"] as? Int == 1000 && reset2.json["default"] as? Bool == true)
            #expect(try await relay.request("PUT", "/admin/v1/apps/\(app.key)/rate_limit", json: ["per_minute": 0]).status == 400)
            #expect(try await relay.request("PUT", "/admin/v1/apps/\(String(repeating: "0", count: 24))/rate_limit", json: ["per_minute": 5]).status == 404)
            #expect(try await relay.request("PUT", "/admin/v1/apps/\(app.key)/rate_limit", auth: .none, json: ["per_minute": 5]).status == 401)
        }
    }

    @Test func failedAuthenticationsPerAddressAndAppKeyAreLimitedBeforeCredentialsAreChecked() async throws {
        try await RelayHarness.with(rateLimits: RateLimitSettings(defaultPerMinute: 1000, authFailuresPerMinute: 3)) { relay in
            let app = try await relay.createApp()
            let neighbour = try await relay.createApp("neighbour behind the same address")
            var statuses: [Int] = []
            for _ in 0..<5 {
                statuses.append(try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, "wrong")).status)
            }
            #expect(statuses.prefix(3).allSatisfy { $0 == 401 } || statuses.contains(429))
            #expect(statuses.last == 429)
            // Now even the right secret of this app is refused from this address, for the rest of the minute.
            let blocked = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret))
            #expect(blocked.status == 429 && blocked.errorCode == 2002)
            let retryAfter = try #require(Int(blocked.headers["retry-after"] ?? ""), "a 429 says when to retry")
            #expect((1...60).contains(retryAfter))
            // Another app's client at the same address (a NAT, a load balancer) is not locked out.
            let neighbourReply = try await relay.request("GET", "/v3/push/cid", auth: .basic(neighbour.key, neighbour.secret))
            #expect(neighbourReply.status == 200, "one app's failures never lock out another app behind the same address")
            let group = try await relay.request("POST", "/v3/grouppush", auth: .basic("group-x", "y"), json: [:])
            #expect(group.status == 401, "a group key has counters of its own")
        }
    }
}
