import Foundation
import PostgresStore
@testable import RelayAPI
@testable import RelayStore
import RelayCore
import Testing

/// The admin reports and `GET /v3/users`, end to end against the APNs simulator: numbers
/// checked against what the simulator received and against the message counters.
@Suite(.serialized) struct AdminReportsTests {
    @Test func reportsMatchTheSimulatorsDeliveries() async throws {
        try await PipelineHarness.with { relay in
            let a = try await relay.createApp("app A")
            let b = try await relay.createApp("app B")
            try await relay.insertDevices(a, count: 25, prefix: "a1")
            try await relay.insertDevices(a, count: 3, prefix: "dead")
            try await relay.insertDevices(a, count: 2, prefix: "badd")
            try await relay.insertDevices(b, count: 5, prefix: "b1")
            let first = try await relay.accepted(a, ["platform": "ios", "audience": "all", "notification": ["alert": "broadcast A"]])
            try await relay.waitUntilFinished(first)
            let second = try await relay.accepted(b, ["platform": "ios", "audience": "all", "notification": ["alert": "broadcast B"]])
            try await relay.waitUntilFinished(second)
            let simulated = relay.simulator.deliveries().filter { $0.msgID == first }.count
            #expect(simulated == 25)

            // The funnel.
            let funnel = try await relay.request("GET", "/admin/v1/messages/\(first)")
            #expect(funnel.status == 200)
            let steps = try #require(funnel.json["funnel"] as? [String: Any])
            #expect(steps["target"] as? Int == 30)
            #expect(steps["sent"] as? Int == simulated)
            #expect(steps["invalidated"] as? Int == 5)
            #expect(steps["pending"] as? Int == 0)
            #expect(steps["failed_by_reason"] as? [String: Int] == ["Unregistered": 3, "BadDeviceToken": 2])
            #expect(funnel.json["app_key"] as? String == a.key)
            #expect(funnel.json["state"] as? String == "done")
            #expect(funnel.json["alert"] as? String == "broadcast A")
            #expect(funnel.json["progress"] as? Double == 1.0)
            #expect(funnel.json["duration_seconds"] is Double)
            #expect(try await relay.request("GET", "/admin/v1/messages/999").status == 404)
            #expect(try await relay.request("GET", "/admin/v1/messages/x1").status == 400)
            #expect(try await relay.request("GET", "/admin/v1/messages/\(first)", auth: .basic(a.key, a.secret)).status == 401)

            // The listing: newest first, keyset pages, one app.
            let page1 = try await relay.request("GET", "/admin/v1/messages?limit=1")
            let listed1 = try #require(page1.json["messages"] as? [[String: Any]])
            #expect(listed1.map { $0["msg_id"] as? String } == [String(second)])
            let cursor = try #require(page1.json["next_cursor"] as? String)
            let page2 = try await relay.request("GET", "/admin/v1/messages?limit=1&cursor=\(cursor)")
            #expect((page2.json["messages"] as? [[String: Any]])?.map { $0["msg_id"] as? String } == [String(first)])
            #expect(page2.json["next_cursor"] is NSNull, "the last page says so")
            let onlyB = try await relay.request("GET", "/admin/v1/messages?app_key=\(b.key)")
            #expect((onlyB.json["messages"] as? [[String: Any]])?.map { $0["sent"] as? Int } == [5])
            let future = try await relay.request("GET", "/admin/v1/messages?since=\(Int(Date().timeIntervalSince1970) + 3600)")
            #expect((future.json["messages"] as? [[String: Any]])?.isEmpty == true)
            #expect(try await relay.request("GET", "/admin/v1/messages?app_key=000000000000000000000000").status == 404)

            // The rollup: per minute and per day it adds up to the counters, per app.
            for bucket in ["minute", "hour", "day"] {
                let stats = try await relay.request("GET", "/admin/v1/stats?bucket=\(bucket)")
                #expect(stats.status == 200)
                let totals = try #require(stats.json["totals"] as? [String: Int])
                #expect(totals["sent"] == 30, "\(bucket)")
                #expect(totals["invalidated"] == 5, "\(bucket)")
                #expect(stats.json["failed_by_reason"] as? [String: Int] == ["Unregistered": 3, "BadDeviceToken": 2])
                let apps = try #require(stats.json["apps"] as? [[String: Any]])
                let byKey = Dictionary(uniqueKeysWithValues: apps.map { ($0["app_key"] as! String, $0) })
                #expect((byKey[a.key]?["totals"] as? [String: Int])?["sent"] == 25)
                #expect((byKey[b.key]?["totals"] as? [String: Int])?["sent"] == 5)
                let points = try #require(byKey[a.key]?["points"] as? [[String: Any]])
                #expect(points.reduce(0) { $0 + ($1["sent"] as? Int ?? 0) } == 25)
            }
            let onlyA = try await relay.request("GET", "/admin/v1/stats?app_key=\(a.key)")
            #expect((onlyA.json["apps"] as? [[String: Any]])?.count == 1)
            #expect(onlyA.json["failed_by_reason"] as? [String: Int] == ["Unregistered": 3, "BadDeviceToken": 2])
            let past = try await relay.request("GET", "/admin/v1/stats?since=2020-01-01T00:00:00Z&until=2020-01-01T01:00:00Z")
            #expect((past.json["totals"] as? [String: Int])?["sent"] == 0)
            #expect(try await relay.request("GET", "/admin/v1/stats?bucket=week").status == 400)

            // JPush's user statistics: every device of A was created and seen today.
            let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
            let users = try await relay.request("GET", "/v3/users?time_unit=DAY&start=\(today)&duration=1", auth: a.auth)
            #expect(users.status == 200)
            #expect(users.json["time_unit"] as? String == "DAY")
            let items = try #require(users.json["items"] as? [[String: Any]])
            #expect(items.count == 1)
            #expect(items.first?["time"] as? String == today)
            #expect((items.first?["ios"] as? [String: Any])?["new"] as? Int == 30)
            #expect((items.first?["ios"] as? [String: Any])?["active"] as? Int == 30)
            let hours = try await relay.request("GET", "/v3/users?time_unit=HOUR&start=2020-01-01%2000&duration=24", auth: a.auth)
            #expect((hours.json["items"] as? [[String: Any]])?.count == 24)
            let bad = try await relay.request("GET", "/v3/users?time_unit=DAY&start=2020-01-01&duration=61", auth: a.auth)
            #expect(bad.status == 400 && bad.errorCode == 3002)
        }
    }

    /// A message with 10M deliveries answers from its counters: none of its delivery rows
    /// exist here, yet the funnel and listing show them, in milliseconds.
    @Test func reportsReadCountersNotDeliveries() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            try await relay.pool.query("""
                INSERT INTO messages (id, app_id, body, environment, lane, state, accepted_at, expires_at,
                                      target_count, sent_count, failed_count, invalidated_count, retry_count, finished_at)
                VALUES (77, $1, '{"platform":"ios","audience":"all","notification":{"ios":{"alert":{"body":"big"}}}}', 'production',
                        'broadcast', 'done', 1796000000, now() + interval '1 day', 10000000, 9990000, 4000, 6000, 123, now())
                """, [app.id])
            try await relay.pool.query("INSERT INTO message_failures VALUES (77, 'Unregistered', 6000), (77, 'BadTopic', 4000)")
            let started = ContinuousClock.now
            let funnel = try await relay.request("GET", "/admin/v1/messages/77")
            #expect(ContinuousClock.now - started < .milliseconds(500))
            let steps = try #require(funnel.json["funnel"] as? [String: Any])
            #expect(steps["target"] as? Int == 10_000_000)
            #expect(steps["sent"] as? Int == 9_990_000)
            #expect(steps["failed_by_reason"] as? [String: Int] == ["Unregistered": 6000, "BadTopic": 4000])
            #expect(funnel.json["retries"] as? Int == 123)
            #expect(funnel.json["alert"] as? String == "big")
        }
    }
}

/// The admin reports' parameters, without a database.
@Suite struct AdminReportParameterTests {
    let now = Date(timeIntervalSince1970: 1_796_040_030) // 2026-11-30T12:00:30Z

    @Test func statsWindowDefaultsToTheLastHourByMinuteAlignedToBuckets() throws {
        let window = try ReportWindow(query: [:], now: now)
        #expect(window.bucket == .minute)
        #expect(ReportTime.format(window.until) == "2026-11-30T12:01:00Z")
        #expect(ReportTime.format(window.since) == "2026-11-30T11:00:00Z")
        #expect(window.bucketStarts.count == 61)
        let days = try ReportWindow(query: ["bucket": "day", "since": "2026-11-28T05:00:00Z", "until": "1796040030"], now: now)
        #expect(days.bucketStarts.map(ReportTime.format) == ["2026-11-28T00:00:00Z", "2026-11-29T00:00:00Z", "2026-11-30T00:00:00Z"])
    }

    @Test func statsWindowRefusesBadValues() {
        for query in [["bucket": "week"], ["since": "yesterday"], ["until": "2026-13-01"],
                      ["since": "2026-12-01T12:00:00Z", "until": "2026-11-30T11:00:00Z"],
                      ["bucket": "minute", "since": "2026-11-01T00:00:00Z"]] {
            #expect(throws: JPushError.self, "\(query)") { try ReportWindow(query: query, now: now) }
        }
    }

    @Test func usersQueryReadsJPushsUnitsAndLimits() throws {
        let hours = try UsersQuery(query: ["time_unit": "hour", "start": "2026-11-30 22", "duration": "3"])
        #expect(hours.labels == ["2026-11-30 22", "2026-11-30 23", "2026-12-01 00"])
        #expect(hours.boundaries.count == 4)
        let months = try UsersQuery(query: ["time_unit": "MONTH", "start": "2026-12", "duration": "2"])
        #expect(months.labels == ["2026-12", "2027-01"])
        #expect(ReportTime.format(months.boundaries[2]) == "2027-02-01T00:00:00Z")
        for query in [["time_unit": "WEEK", "start": "2026-11-30", "duration": "1"],
                      ["time_unit": "DAY", "start": "2026-11-30 10", "duration": "1"],
                      ["time_unit": "DAY", "start": "2026-11-31", "duration": "1"],
                      ["time_unit": "HOUR", "start": "2026-11-30 10", "duration": "25"],
                      ["time_unit": "MONTH", "start": "2026-11", "duration": "0"]] {
            #expect(throws: JPushError.self, "\(query)") { try UsersQuery(query: query) }
        }
    }

    @Test func messageListingBindsOnlyTheFiltersGiven() throws {
        let plain = try MessageListing(query: [:])
        #expect(plain.statement(appID: nil).1.count == 1)
        #expect(!plain.statement(appID: nil).0.text.contains("WHERE m."), "no filter on the messages")
        let filtered = try MessageListing(query: ["cursor": "500", "since": "0", "limit": "10"])
        let (statement, parameters) = filtered.statement(appID: 7)
        let sql = statement.text
        #expect(sql.contains("m.app_id = $2 AND m.id < $3 AND m.created_at >= $4"))
        #expect(parameters.count == 4)
        #expect(throws: JPushError.self) { try MessageListing(query: ["limit": "501"]) }
        #expect(throws: JPushError.self) { try MessageListing(query: ["cursor": "-1"]) }
    }
}
