import Foundation
import Testing

/// `/v3/schedules` as JPush's SDKs use it: shapes, paging, idempotent cid, 8xxx errors that
/// name the field, and no app seeing another's schedules.
@Suite struct ScheduleAPITests {
    static func single(_ seconds: TimeInterval = 3600) -> [String: Any] {
        ["single": ["time": jpushTime(Date().addingTimeInterval(seconds))]]
    }

    static func schedule(_ name: String = "reminder", trigger: [String: Any] = single(), push: [String: Any]? = nil) -> [String: Any] {
        ["name": name, "enabled": true, "trigger": trigger,
         "push": push ?? ["platform": "all", "audience": "all", "notification": ["alert": "hello"]]]
    }

    /// Each bad body gets HTTP 400, code 8100, and a message naming the field at fault.
    @Test func badInputGets8100NamingTheField() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let periodical: ([String: Any]) -> [String: Any] = { change in
                var rule: [String: Any] = ["start": jpushTime(Date()), "end": jpushTime(Date().addingTimeInterval(30 * 86_400)),
                                           "time": "09:00:00", "time_unit": "week", "frequency": 1, "point": ["MON"]]
                rule.merge(change) { $1 }
                return ["periodical": rule]
            }
            var noName = Self.schedule()
            noName["name"] = nil
            var unknown = Self.schedule()
            unknown["colour"] = "red"
            let cases: [(String, Any, String)] = [
                ("missing name", noName, "name"),
                ("name too long", Self.schedule(String(repeating: "n", count: 256)), "name"),
                ("unknown key", unknown, "colour"),
                ("time format", Self.schedule(trigger: ["single": ["time": "tomorrow at nine"]]), "trigger.single.time"),
                ("time in the past", Self.schedule(trigger: Self.single(-3600)), "trigger.single.time"),
                ("time zone", Self.schedule(trigger: ["single": ["time": jpushTime(Date().addingTimeInterval(60)), "time_zone": "Mars/Olympus"]]),
                 "time_zone"),
                ("frequency", Self.schedule(trigger: periodical(["frequency": 101])), "frequency"),
                ("time_unit", Self.schedule(trigger: periodical(["time_unit": "fortnight"])), "time_unit"),
                ("point", Self.schedule(trigger: periodical(["point": ["FUNDAY"]])), "point"),
                ("push platform", Self.schedule(push: ["platform": "blackberry", "audience": "all", "notification": ["alert": "x"]]),
                 "platform"),
                ("push without content", Self.schedule(push: ["platform": "ios", "audience": "all"]), "push"),
            ]
            for (what, body, field) in cases {
                let reply = try await relay.request("POST", "/v3/schedules", auth: app.auth, json: body)
                let message = (reply.json["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(reply.status == 400 && reply.errorCode == 8100, "\(what): \(reply.status) \(reply.text)")
                #expect(message.contains(field), "\(what): \"\(message)\" should name \(field)")
            }
            let notJSON = try await relay.request("POST", "/v3/schedules", auth: app.auth, body: Data("{".utf8))
            #expect(notJSON.status == 400 && notJSON.errorCode == 8100)
            let page = try await relay.request("GET", "/v3/schedules?page=0", auth: app.auth)
            #expect(page.status == 400 && page.errorCode == 8100 && page.text.contains("page"))
            let id = try await relay.createSchedule(app, Self.schedule())
            let emptyUpdate = try await relay.request("PUT", "/v3/schedules/\(id)", auth: app.auth, json: [String: Any]())
            #expect(emptyUpdate.status == 400 && emptyUpdate.errorCode == 8100)
            let badPushUpdate = try await relay.request("PUT", "/v3/schedules/\(id)", auth: app.auth, json: ["push": ["platform": "ios"]])
            #expect(badPushUpdate.status == 400 && badPushUpdate.errorCode == 8100 && badPushUpdate.text.contains("push"))

            let wrong = try await relay.request("GET", "/v3/schedules", auth: .basic(app.key, "wrong"))
            #expect(wrong.status == 401 && wrong.errorCode == 8101)
            let unknownID = try await relay.request("GET", "/v3/schedules/\(UUID().uuidString.lowercased())", auth: app.auth)
            #expect(unknownID.status == 404 && unknownID.errorCode == 8104)
            let notAnID = try await relay.request("DELETE", "/v3/schedules/12345", auth: app.auth)
            #expect(notAnID.status == 404 && notAnID.errorCode == 8104)
        }
    }

    /// Create, get (with next_fire_times in the trigger's zone), list in pages of 50 (with a
    /// trailing slash, as the Python SDK sends it), a cid answering the first schedule, a
    /// PUT replacing whole sections, and DELETE.
    @Test func createListGetUpdateDelete() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let trigger: [String: Any] = ["periodical": [
                "start": "2030-03-01 00:00:00", "end": "2030-06-01 00:00:00", "time": "09:00:00",
                "time_unit": "month", "frequency": 1, "point": ["31", "30"], "time_zone": "Europe/Berlin",
            ]]
            var first = Self.schedule("monthly", trigger: trigger)
            first["cid"] = "monthly-1"
            let created = try await relay.request("POST", "/v3/schedules", auth: app.auth, json: first)
            #expect(created.status == 200)
            let id = try #require(created.json["schedule_id"] as? String)
            #expect(created.json["name"] as? String == "monthly")
            let again = try await relay.request("POST", "/v3/schedules", auth: app.auth, json: first)
            #expect(again.json["schedule_id"] as? String == id, "the same cid answers the first schedule")

            let shown = try await relay.request("GET", "/v3/schedules/\(id)", auth: app.auth)
            #expect(shown.status == 200)
            #expect(shown.json["enabled"] as? Bool == true && shown.json["cid"] as? String == "monthly-1")
            // April has no 31st (skipped); 09:00 Berlin time on both sides of nothing.
            #expect((shown.json["next_fire_times"] as? [String]) == [
                "2030-03-30 09:00:00", "2030-03-31 09:00:00", "2030-04-30 09:00:00", "2030-05-30 09:00:00", "2030-05-31 09:00:00",
            ])
            let periodical = (shown.json["trigger"] as? [String: Any])?["periodical"] as? [String: Any]
            #expect(periodical?["time_zone"] as? String == "Europe/Berlin" && periodical?["time_unit"] as? String == "month")

            for index in 0..<50 { _ = try await relay.createSchedule(app, Self.schedule("filler \(index)")) }
            let page1 = try await relay.request("GET", "/v3/schedules/?page=1", auth: app.auth)
            #expect(page1.json["total_count"] as? Int == 51 && page1.json["total_pages"] as? Int == 2 && page1.json["page"] as? Int == 1)
            let firstPage = page1.json["schedules"] as? [[String: Any]] ?? []
            #expect(firstPage.count == 50 && firstPage.first?["schedule_id"] as? String == id)
            let page2 = try await relay.request("GET", "/v3/schedules?page=2", auth: app.auth)
            #expect((page2.json["schedules"] as? [[String: Any]])?.count == 1)
            let page3 = try await relay.request("GET", "/v3/schedules?page=3", auth: app.auth)
            #expect(page3.status == 200 && (page3.json["schedules"] as? [[String: Any]])?.isEmpty == true)

            let updated = try await relay.request("PUT", "/v3/schedules/\(id)", auth: app.auth, json: ["name": "renamed", "enabled": false])
            #expect(updated.status == 200)
            #expect(updated.json["name"] as? String == "renamed" && updated.json["enabled"] as? Bool == false)
            #expect(((updated.json["trigger"] as? [String: Any])?["periodical"] as? [String: Any])?["time"] as? String == "09:00:00",
                    "the trigger is kept")
            let disabled = try await relay.request("GET", "/v3/schedules/\(id)", auth: app.auth)
            #expect((disabled.json["next_fire_times"] as? [String]) == [], "a disabled schedule fires never")
            let nextFire = try await relay.pool.query("SELECT next_fire_at FROM schedules WHERE id = $1::uuid", [id]).first?["next_fire_at"]
            #expect(nextFire == nil)

            let deleted = try await relay.request("DELETE", "/v3/schedules/\(id)/", auth: app.auth)
            #expect(deleted.status == 200)
            let after = try await relay.request("GET", "/v3/schedules", auth: app.auth)
            #expect(after.json["total_count"] as? Int == 50)
        }
    }

    /// Another app's schedule is invisible: not listed, and get, update, delete and msg_ids
    /// all answer 8104 and leave it as it was.
    @Test func anAppCannotSeeOrTouchAnotherAppsSchedules() async throws {
        try await PipelineHarness.with { relay in
            let owner = try await relay.createApp("owner")
            let other = try await relay.createApp("other")
            let id = try await relay.createSchedule(owner, Self.schedule("private"))
            _ = try await relay.createSchedule(other, Self.schedule("theirs"))

            let listed = try await relay.request("GET", "/v3/schedules", auth: other.auth)
            #expect(listed.json["total_count"] as? Int == 1)
            #expect((listed.json["schedules"] as? [[String: Any]])?.first?["name"] as? String == "theirs")
            for (method, path, body) in [("GET", "/v3/schedules/\(id)", nil), ("PUT", "/v3/schedules/\(id)", ["name": "stolen"]),
                                         ("DELETE", "/v3/schedules/\(id)", nil), ("GET", "/v3/schedules/\(id)/msg_ids", nil)] as [(String, String, [String: Any]?)] {
                let reply = try await relay.request(method, path, auth: other.auth, json: body)
                #expect(reply.status == 404 && reply.errorCode == 8104, "\(method) \(path): \(reply.status) \(reply.text)")
            }
            let mine = try await relay.request("GET", "/v3/schedules/\(id)", auth: owner.auth)
            #expect(mine.status == 200 && mine.json["name"] as? String == "private")
        }
    }
}
