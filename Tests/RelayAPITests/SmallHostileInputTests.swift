import Foundation
import Testing

/// The tester's small findings: huge values echoed whole, a NUL in a schedule name, a NUL
/// after a master secret.
@Suite struct SmallHostileInputTests {
    @Test func errorsQuoteAtMostAboutAHundredBytesOfTheInput() async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let huge = String(repeating: "a", count: 100_000)
            // A request line is bounded by the HTTP server; bodies carry the big values.
            let long = String(repeating: "b", count: 2_000)
            let replies = [
                (try await relay.request("POST", "/v3/push/validate", auth: .basic(app.key, app.secret),
                                         json: ["platform": "ios", "audience": ["alias": [huge]], "notification": ["alert": "x"]]), 100_000),
                (try await relay.request("POST", "/admin/v1/apps", json: ["name": "x", huge: 1]), 100_000),
                (try await relay.request("POST", "/v3/schedules", auth: .basic(app.key, app.secret),
                                         json: ["name": "n", "enabled": true, "push": [:],
                                                "trigger": ["single": ["time": huge]]]), 100_000),
                (try await relay.request("GET", "/admin/v1/messages?limit=\(long)"), 2_000),
                (try await relay.request("GET", "/v3/schedules/\(long)", auth: .basic(app.key, app.secret)), 2_000),
                (try await relay.request("GET", "/admin/v1/apps/\(long)"), 2_000),
            ]
            for (reply, size) in replies {
                #expect((400..<500).contains(reply.status))
                #expect(reply.errorMessage?.contains("(\(size) bytes)") == true, "\(reply.errorMessage?.prefix(200) ?? "")")
                #expect(reply.body.count < 400, "\(reply.body.count) bytes")
            }
        }
    }

    @Test func aNULAfterTheMasterSecretDoesNotAuthenticate() async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            #expect(try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, app.secret)).status == 200)
            for secret in [app.secret + "\u{0}", app.secret + "\u{0}\u{0}", app.secret + "\u{0}x"] {
                let reply = try await relay.request("GET", "/v3/push/cid", auth: .basic(app.key, secret))
                #expect(reply.status == 401 && reply.errorCode == 1004)
            }
        }
    }

    @Test func aScheduleNameWithNULIs8100() async throws {
        try await RelayHarness.with { relay in
            let app = try await relay.createApp()
            let when = Date().addingTimeInterval(86_400)
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
            let schedule: [String: Any] = [
                "name": "a\u{0}b", "enabled": true, "trigger": ["single": ["time": formatter.string(from: when)]],
                "push": ["platform": "ios", "audience": "all", "notification": ["alert": "hi"]],
            ]
            let reply = try await relay.request("POST", "/v3/schedules", auth: .basic(app.key, app.secret), json: schedule)
            #expect(reply.status == 400 && reply.errorCode == 8100, "\(reply.status) \(reply.errorMessage ?? "")")
            var good = schedule
            good["name"] = "ok"
            let created = try await relay.request("POST", "/v3/schedules", auth: .basic(app.key, app.secret), json: good)
            let id = try #require(created.json["schedule_id"] as? String)
            let renamed = try await relay.request("PUT", "/v3/schedules/\(id)", auth: .basic(app.key, app.secret), json: ["name": "x\u{0}"])
            #expect(renamed.status == 400 && renamed.errorCode == 8100)
        }
    }
}
