import Foundation
@testable import RelayStore
import Testing
@testable import RelayAPI
import PostgresStore

/// App B cannot see or change app A's devices, even knowing their registration ids.
@Suite struct DeviceIsolationTests {
    @Test func anotherAppCannotSeeOrChangeDevices() async throws {
        try await RelayHarness.with { relay in
            let a = try await DeviceClient.make(relay, name: "A")
            let b = try await DeviceClient.make(relay, name: "B")
            let token = DeviceClient.randomToken()
            let rid = try await a.register(token: token, extra: ["alias": "alice", "tags": ["vip"], "badge": 2])
            let random = String(repeating: "ab", count: 16)

            // B gets exactly the answer it would get for an id that exists nowhere.
            let guessed = try await b.request("GET", "/v3/devices/\(rid)")
            let nowhere = try await b.request("GET", "/v3/devices/\(random)")
            #expect(guessed.status == 400 && guessed.errorCode == 7002)
            #expect(guessed.errorMessage == nowhere.errorMessage?.replacingOccurrences(of: random, with: rid))

            let responses = [
                try await b.request("POST", "/v3/devices/\(rid)", json: ["alias": "mallory", "tags": "", "badge": 99]),
                try await b.request("POST", "/v3/tags/vip", json: ["registration_ids": ["remove": [rid]]]),
                try await b.request("POST", "/v3/tags/evil", json: ["registration_ids": ["add": [rid]]]),
                try await b.request("GET", "/v3/tags/vip/registration_ids/\(rid)"),
                try await b.request("POST", "/v3/aliases/alice", json: ["registration_ids": ["remove": [rid]]]),
                try await b.request("POST", "/v3/devices/status", json: ["registration_ids": [rid]]),
            ]
            for reply in responses {
                #expect(reply.status == 400 && reply.errorCode == 7002)
            }
            #expect(try await b.request("GET", "/v3/tags").json["tags"] as? [String] == [])
            #expect(try await b.request("GET", "/v3/aliases/alice").json["registration_ids"] as? [String] == [])
            #expect(try await b.request("DELETE", "/v3/tags/vip").status == 200)
            #expect(try await b.request("DELETE", "/v3/aliases/alice").status == 200)

            // B registering the same token gets a device of its own.
            let bRid = try await b.register(token: token, environment: "sandbox", extra: ["alias": "bob", "tags": []])
            #expect(bRid != rid)

            let info = try await a.info(rid)
            #expect(info.tags == ["vip"] && info.alias == "alice", "nothing B did reached A's device")
            let device = try #require(try await a.adminDevice(rid))
            #expect(device["badge"] as? Int == 2 && device["environment"] as? String == "production")
            #expect(try await a.request("GET", "/v3/aliases/alice").json["registration_ids"] as? [String] == [rid])
            #expect(try await b.adminDevice(rid) == nil)
        }
    }

    /// Below the API too: a tag row of app B cannot point at a device of app A.
    @Test func schemaTiesTagsToTheirAppsDevices() async throws {
        try await RelayHarness.with { relay in
            let a = try await DeviceClient.make(relay, name: "A")
            let b = try await DeviceClient.make(relay, name: "B")
            let rid = try await a.register()
            let apps = AppRepository(pool: relay.pool)
            let bID = try #require(try await apps.id(appKey: b.key))
            let deviceID = try #require(try await relay.pool.query(
                "SELECT id FROM devices WHERE registration_id = $1::uuid", [rid]).first?.int("id"))
            await #expect(throws: PostgresError.self) {
                try await relay.pool.query("INSERT INTO device_tags (app_id, tag, device_id) VALUES ($1, 'x', $2)", [bID, Int64(deviceID)])
            }

            // Deleting an app takes its devices and their tags with it, and nothing of B's.
            _ = try await b.register(extra: ["tags": ["keep"]])
            #expect(try await a.request("POST", "/v3/devices/\(rid)", json: ["tags": ["add": ["gone"]]]).status == 200)
            #expect(try await relay.request("DELETE", "/admin/v1/apps/\(a.key)").status == 200)
            let left = try await relay.pool.query("SELECT (SELECT count(*) FROM devices) AS devices, (SELECT string_agg(tag, ',') FROM device_tags) AS tags")
            #expect(try left.first?.int("devices") == 1 && left.first?["tags"] == "keep")
        }
    }
}
