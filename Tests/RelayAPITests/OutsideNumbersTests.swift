import Foundation
import Testing

/// Numbers and dates from outside, at and past every limit, on every route that reads them:
/// each answer is a 400 in JPush's shape that names the allowed range, never a trap (which
/// would end this test process) or a 500.
@Suite struct OutsideNumbersTests {
    /// Past Int64 both ways, at its ends, and far outside any sane instant.
    static let extremes = [
        "-9223372036854775808", "9223372036854775807", "-9223372036854775809", "9223372036854775808",
        "100000000000000000", "-100000000000000000", "99999999999999999999999", "1e308", "NaN", "-0x10",
    ]
    static let badInstants = extremes + [
        "-1", "253402300800", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "10000-01-01T00:00:00Z",
    ]

    struct Case: CustomStringConvertible {
        var path: String
        var app: Bool = false
        var code = 1003
        /// The range the message must name.
        var names: String

        var description: String { path }
    }

    static func cases(appKey: String) -> [Case] {
        var cases: [Case] = []
        let window = "from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z"
        for value in badInstants {
            let escaped = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
            for name in ["since", "until"] {
                cases.append(Case(path: "/admin/v1/messages?\(name)=\(escaped)", names: window))
                cases.append(Case(path: "/admin/v1/stats?\(name)=\(escaped)", names: window))
            }
        }
        // Each whole-number parameter with every extreme outside its range.
        let integers: [(path: String, range: ClosedRange<Int64>, app: Bool, code: Int)] = [
            ("/admin/v1/messages?cursor=", 1...Int64.max, false, 1003),
            ("/admin/v1/messages?limit=", 1...500, false, 1003),
            ("/admin/v1/groups/000000000000000000000000/messages?cursor=", 1...Int64.max, false, 1003),
            ("/admin/v1/groups/000000000000000000000000/messages?limit=", 1...100, false, 1003),
            ("/admin/v1/apps/\(appKey)/devices?limit=", 1...1000, false, 1003),
            ("/admin/v1/apps/\(appKey)/devices?after=", 0...Int64.max, false, 1003),
            ("/v3/push/cid?count=", 1...1000, true, 1003),
            ("/v3/schedules?page=", 1...1_000_000, true, 8100),
            ("/v3/users?time_unit=DAY&start=2026-01-01&duration=", 1...60, true, 3002),
        ]
        for integer in integers {
            for value in extremes + ["0", "-1"] where Int64(value).map(integer.range.contains) != true {
                let escaped = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
                cases.append(Case(path: integer.path + escaped, app: integer.app, code: integer.code,
                                  names: "from \(integer.range.lowerBound) to \(integer.range.upperBound)"))
            }
        }
        // JPush's user statistics: buckets outside the window (PostgreSQL refused year 1 with 22008).
        let users = "from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z"
        for (unit, start, duration) in [("DAY", "0001-01-01", 1), ("HOUR", "0001-01-01%2000", 1), ("MONTH", "0001-01", 1),
                                        ("DAY", "1969-12-31", 1), ("MONTH", "9999-12", 2), ("DAY", "9999-12-31", 2)] {
            cases.append(Case(path: "/v3/users?time_unit=\(unit)&start=\(start)&duration=\(duration)", app: true, code: 3002,
                              names: users))
        }
        return cases
    }

    @Test func everyRouteRefusesNumbersOutsideItsRangeWith400() async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            for item in Self.cases(appKey: app.key) {
                let reply = try await relay.request("GET", item.path, auth: item.app ? .basic(app.key, app.secret) : .admin)
                #expect(reply.status == 400, "\(item)")
                #expect(reply.errorCode == item.code, "\(item)")
                #expect(reply.errorMessage?.contains(item.names) == true, "\(item): \(reply.errorMessage ?? "")")
            }
            // The ends of each range are accepted.
            for path in ["/admin/v1/messages?since=0&until=253402300799", "/admin/v1/messages?since=1970-01-01T00:00:00Z",
                         "/admin/v1/messages?until=9999-12-31T23:59:59Z&cursor=9223372036854775807&limit=500",
                         "/admin/v1/stats?since=9999-12-31T00:00:00Z&until=9999-12-31T23:59:59Z&bucket=hour",
                         "/admin/v1/stats?since=0&until=3600",
                         "/admin/v1/apps/\(app.key)/devices?after=9223372036854775807&limit=1000"] {
                #expect(try await relay.request("GET", path).status == 200, "\(path)")
            }
            for path in ["/v3/users?time_unit=DAY&start=9999-12-31&duration=1", "/v3/users?time_unit=MONTH&start=1970-01&duration=2",
                         "/v3/schedules?page=1000000", "/v3/push/cid?count=1000"] {
                #expect(try await relay.request("GET", path, auth: .basic(app.key, app.secret)).status == 200, "\(path)")
            }
        }
    }

    @Test func schedulesFarInThePastOrFutureAre8100() async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let push: [String: Any] = ["platform": "all", "audience": "all", "notification": ["alert": "hi"]]
            let triggers: [[String: Any]] = [
                ["single": ["time": "0001-01-01 00:00:00"]],
                ["single": ["time": "9999-12-31 23:59:59"]],
                ["periodical": ["start": "0001-01-01 00:00:00", "end": "0001-12-31 00:00:00", "time": "12:00:00", "time_unit": "day"]],
                ["periodical": ["start": "9999-01-01 00:00:00", "end": "9999-12-31 23:59:59", "time": "12:00:00", "time_unit": "day",
                                "frequency": 9_223_372_036_854_775_807]],
            ]
            for trigger in triggers {
                let reply = try await relay.request("POST", "/v3/schedules", auth: .basic(app.key, app.secret),
                                                    json: ["name": "far", "enabled": true, "trigger": trigger, "push": push])
                #expect(reply.status == 400 && reply.errorCode == 8100, "\(trigger): \(reply.status) \(reply.errorMessage ?? "")")
            }
        }
    }
}
