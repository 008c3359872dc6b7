import Foundation
@testable import RelayStore
import Testing
@testable import RelayAPI

/// Token state (invalidation and revival), the admin listing and counts, and the indexes
/// the fan-out relies on.
@Suite struct DeviceStateTests {
    @Test func invalidationRespectsLaterRegistrationAndReRegistrationRevives() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let token = DeviceClient.randomToken()
            let rid = try await app.register(token: token, environment: "sandbox")
            let appID = try #require(try await AppRepository(pool: relay.pool).id(appKey: app.key))
            let devices = DeviceRepository(pool: relay.pool)
            let registeredAt = try await relay.pool.query("SELECT registered_at FROM devices").first!.date("registered_at")

            // A 410 whose APNs timestamp predates the registration: the token is fresh.
            #expect(try await !devices.invalidate(appID: appID, token: token, reason: "Unregistered",
                                                  apnsTimestamp: registeredAt.addingTimeInterval(-60), sentAt: Date()))
            #expect(try await app.adminDevice(rid)?["active"] as? Bool == true)
            // Without a timestamp, the send time decides the same way.
            #expect(try await !devices.invalidate(appID: appID, token: token, reason: "BadDeviceToken",
                                                  apnsTimestamp: nil, sentAt: registeredAt.addingTimeInterval(-1)))
            // Another app's identical token is not touched.
            #expect(try await !devices.invalidate(appID: appID + 1000, token: token, reason: "Unregistered",
                                                  apnsTimestamp: Date().addingTimeInterval(60), sentAt: Date()))

            let apnsTime = registeredAt.addingTimeInterval(30)
            #expect(try await devices.invalidate(appID: appID, token: token, reason: "Unregistered", apnsTimestamp: apnsTime, sentAt: Date()))
            let dead = try #require(try await app.adminDevice(rid))
            #expect(dead["active"] as? Bool == false && dead["invalidation_reason"] as? String == "Unregistered")
            #expect(dead["invalidated_at"] is String && dead["apns_invalidated_at"] is String)
            #expect(dead["reactivated_at"] is NSNull)

            var counts = try await relay.request("GET", "/admin/v1/apps/\(app.key)").json["devices"] as? [String: Any]
            #expect((counts?["sandbox"] as? [String: Int]) == ["active": 0, "invalidated": 1])

            let again = try await app.register(token: token.uppercased(), environment: "sandbox")
            #expect(again == rid, "the revived token keeps its registration id")
            let alive = try #require(try await app.adminDevice(rid))
            #expect(alive["active"] as? Bool == true && alive["reactivated_at"] is String)
            #expect(alive["invalidation_reason"] as? String == "Unregistered", "the last invalidation stays on record")

            _ = try await app.register(environment: "production")
            counts = try await relay.request("GET", "/admin/v1/apps/\(app.key)").json["devices"] as? [String: Any]
            #expect((counts?["sandbox"] as? [String: Int]) == ["active": 1, "invalidated": 0])
            #expect((counts?["production"] as? [String: Int]) == ["active": 1, "invalidated": 0])
            #expect(counts?["total"] as? Int == 2)
        }
    }

    @Test func pushBadgesBuildOnTheStoredOne() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let other = try await DeviceClient.make(relay, name: "other")
            let opened = try await app.register(extra: ["badge": 0])
            let behind = try await app.register(extra: ["badge": 2])
            let foreign = try await other.register(extra: ["badge": 1])
            let appID = try #require(try await AppRepository(pool: relay.pool).id(appKey: app.key))
            let ids = try await relay.pool.query("SELECT id, replace(registration_id::text, '-', '') AS rid FROM devices")
            var byRID: [String: Int64] = [:]
            for row in ids { byRID[try row.string("rid")] = Int64(try row.int("id")) }
            let devices = DeviceRepository(pool: relay.pool)
            let targets = [opened, behind, foreign].map { byRID[$0]! }

            var badges = try await devices.applyBadge(appID: appID, deviceIDs: targets, setTo: nil, adding: 1)
            #expect(badges == [byRID[opened]!: 1, byRID[behind]!: 3], "another app's device is neither counted nor changed")
            badges = try await devices.applyBadge(appID: appID, deviceIDs: targets, setTo: nil, adding: -2)
            #expect(badges == [byRID[opened]!: 0, byRID[behind]!: 1])
            badges = try await devices.applyBadge(appID: appID, deviceIDs: [byRID[opened]!], setTo: 9)
            #expect(badges == [byRID[opened]!: 9])
            #expect(try await other.adminDevice(foreign)?["badge"] as? Int == 1)
            // The app opened and cleared its badge: the next "+1" shows 1.
            #expect(try await app.request("POST", "/v3/devices/\(opened)", json: ["badge": 0]).status == 200)
            #expect(try await devices.applyBadge(appID: appID, deviceIDs: [byRID[opened]!], setTo: nil, adding: 1) == [byRID[opened]!: 1])
        }
    }

    @Test func adminListingPagesByKeysetWithFilters() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            var rids: [String] = []
            for index in 0..<25 {
                let rid = try await app.register(environment: index % 2 == 0 ? "sandbox" : "production",
                                                 extra: ["tags": index % 5 == 0 ? ["five"] : [], "alias": "user\(index % 3)"])
                rids.append(rid)
            }
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let path = "/admin/v1/apps/\(app.key)/devices?limit=10" + (cursor.map { "&after=\($0)" } ?? "")
                let reply = try await relay.request("GET", path)
                #expect(reply.status == 200)
                seen += (reply.json["devices"] as? [[String: Any]] ?? []).compactMap { $0["registration_id"] as? String }
                cursor = reply.json["next_cursor"] as? String
                pages += 1
            } while cursor != nil && pages < 10
            #expect(pages == 3 && seen == rids, "every device once, in registration order")

            func filtered(_ query: String) async throws -> [String] {
                let reply = try await relay.request("GET", "/admin/v1/apps/\(app.key)/devices?\(query)")
                return (reply.json["devices"] as? [[String: Any]] ?? []).compactMap { $0["registration_id"] as? String }
            }
            #expect(try await filtered("tag=five") == stride(from: 0, to: 25, by: 5).map { rids[$0] })
            #expect(try await filtered("alias=user1&environment=production") == [1, 7, 13, 19].map { rids[$0] })
            #expect(try await filtered("environment=sandbox").count == 13)
            #expect(try await filtered("active=false").isEmpty)
            let firstPage = try await relay.request("GET", "/admin/v1/apps/\(app.key)/devices?tag=five&limit=2")
            let next = try #require(firstPage.json["next_cursor"] as? String)
            #expect(try await filtered("tag=five&limit=2&after=\(next)") == [10, 15].map { rids[$0] })
            let device = try #require((firstPage.json["devices"] as? [[String: Any]])?.first)
            #expect(device["tags"] as? [String] == ["five"] && device["alias"] as? String == "user0")

            let bad = try await relay.request("GET", "/admin/v1/apps/\(app.key)/devices?limit=5000")
            #expect(bad.status == 400)
            let missing = try await relay.request("GET", "/admin/v1/apps/\(String(repeating: "0", count: 24))/devices")
            #expect(missing.status == 404)
            let unauthorised = try await relay.request("GET", "/admin/v1/apps/\(app.key)/devices", auth: .bearer("wrong-token-wrong-token"))
            #expect(unauthorised.status == 401)
        }
    }

    /// The fan-out's chunk queries are served by an index in device id order: no sequential
    /// scan (with those turned off, a missing index shows up as one) and no sort.
    @Test func fanOutQueriesAreIndexDrivenInIdOrder() async throws {
        try await RelayHarness.with { relay in
            let queries = [
                "SELECT id, token FROM devices WHERE app_id = 1 AND environment = 'production' AND active AND id > 0 ORDER BY id LIMIT 1000",
                "SELECT device_id FROM device_tags WHERE app_id = 1 AND tag = 'vip' AND device_id > 0 ORDER BY device_id LIMIT 1000",
                "SELECT id, token FROM devices WHERE app_id = 1 AND alias = 'alice' AND id > 0 ORDER BY id LIMIT 1000",
                "SELECT id FROM devices WHERE app_id = 1 AND id > 0 ORDER BY id LIMIT 100",
            ]
            for query in queries {
                let plan = try await relay.pool.withConnection { connection in
                    try connection.transaction { connection in
                        try connection.query("SET LOCAL enable_seqscan = off")
                        try connection.query("SET LOCAL enable_bitmapscan = off")
                        try connection.query("SET LOCAL enable_sort = off")
                        return try connection.query("EXPLAIN " + query).map { try $0.string("QUERY PLAN") }.joined(separator: "\n")
                    }
                }
                #expect(!plan.contains("Seq Scan") && !plan.contains("Sort"), "\(query)\n\(plan)")
                #expect(plan.contains("Index"), "\(plan)")
            }
        }
    }
}
