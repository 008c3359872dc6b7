import Foundation
import Testing
@testable import RelayAPI

/// `/v3/tags` and `/v3/aliases`, against a real relay and database.
@Suite struct TagAliasAPITests {
    @Test func tagCalls() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let first = try await app.register(extra: ["tags": ["old"]])
            let second = try await app.register()

            let add = try await app.request("POST", "/v3/tags/vip", json: ["registration_ids": ["add": [first, second]]])
            #expect(add.status == 200 && add.body.isEmpty)
            #expect(try await app.request("POST", "/v3/tags/用户组", json: ["registration_ids": ["add": [first]]]).status == 200)
            let tags = try await app.request("GET", "/v3/tags/")
            #expect(tags.status == 200 && tags.json["tags"] as? [String] == ["old", "vip", "用户组"])

            #expect(try await app.request("GET", "/v3/tags/vip/registration_ids/\(first)").json["result"] as? Bool == true)
            #expect(try await app.request("POST", "/v3/tags/vip", json: ["registration_ids": ["remove": [first]]]).status == 200)
            #expect(try await app.request("GET", "/v3/tags/vip/registration_ids/\(first)").json["result"] as? Bool == false)
            #expect(try await app.request("GET", "/v3/tags/vip/registration_ids/\(second)").json["result"] as? Bool == true)

            #expect(try await app.request("DELETE", "/v3/tags/vip?platform=android").status == 200)
            #expect(try await app.info(second).tags == ["vip"], "deleting a tag for android only leaves iOS devices alone")
            #expect(try await app.request("DELETE", "/v3/tags/vip?platform=android,ios").status == 200)
            #expect(try await app.info(second).tags.isEmpty)
            #expect(try await app.request("GET", "/v3/tags").json["tags"] as? [String] == ["old", "用户组"])

            let badPlatform = try await app.request("DELETE", "/v3/tags/old?platform=symbian")
            #expect(badPlatform.status == 400 && badPlatform.errorCode == 7002)
            let badTag = try await app.request("POST", "/v3/tags/\(String(repeating: "x", count: 41))", json: ["registration_ids": ["add": [first]]])
            #expect(badTag.status == 400 && badTag.errorCode == 7002 && badTag.errorMessage?.contains("40 bytes") == true)
            let dash = try await app.request("GET", "/v3/tags/a-b/registration_ids/\(first)")
            #expect(dash.status == 400 && dash.errorCode == 7002)
            let thousandAndOne = (0...1000).map { _ in DeviceClient.randomToken().prefix(32) }.map(String.init)
            let tooMany = try await app.request("POST", "/v3/tags/vip", json: ["registration_ids": ["add": thousandAndOne]])
            #expect(tooMany.status == 400 && tooMany.errorCode == 7002 && tooMany.errorMessage?.contains("1000") == true)
            let wrongShape = try await app.request("POST", "/v3/tags/vip", json: ["registration_ids": [first]])
            #expect(wrongShape.status == 400 && wrongShape.errorCode == 7002)
        }
    }

    @Test func thousandDevicesInOneTagCall() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            // Registered straight into the table: the point here is the tag call's size.
            try await relay.pool.query("""
                INSERT INTO devices (app_id, token, environment)
                SELECT a.id, lpad(to_hex(n), 64, '0'), 'production' FROM apps a, generate_series(1, 1000) n WHERE a.app_key = $1
                """, [app.key])
            let rids = try await relay.pool.query("SELECT replace(registration_id::text, '-', '') AS rid FROM devices").map { try $0.string("rid") }
            #expect(rids.count == 1000)
            let add = try await app.request("POST", "/v3/tags/bulk", json: ["registration_ids": ["add": rids]])
            #expect(add.status == 200)
            let count = try await relay.pool.query("SELECT count(*) AS n FROM device_tags WHERE tag = 'bulk'")
            #expect(try count.first?.int("n") == 1000)
            let remove = try await app.request("POST", "/v3/tags/bulk", json: ["registration_ids": ["remove": rids]])
            #expect(remove.status == 200)
            #expect(try await app.request("GET", "/v3/tags").json["tags"] as? [String] == [])
        }
    }

    @Test func aliasCalls() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let phone = try await app.register(extra: ["alias": "alice"])
            let tablet = try await app.register(extra: ["alias": "alice"])
            let other = try await app.register(extra: ["alias": "bob"])

            let list = try await app.request("GET", "/v3/aliases/alice")
            #expect(list.status == 200 && list.json["registration_ids"] as? [String] == [phone, tablet])
            #expect(try await app.request("GET", "/v3/aliases/alice?platform=android").json["registration_ids"] as? [String] == [])
            #expect(try await app.request("GET", "/v3/aliases/nobody").json["registration_ids"] as? [String] == [])

            // Setting an alias moves the device: one alias per device.
            #expect(try await app.request("POST", "/v3/devices/\(tablet)", json: ["alias": "bob"]).status == 200)
            #expect(try await app.request("GET", "/v3/aliases/alice").json["registration_ids"] as? [String] == [phone])
            #expect(try await app.request("GET", "/v3/aliases/bob").json["registration_ids"] as? [String] == [tablet, other])

            let remove = try await app.request("POST", "/v3/aliases/bob", json: ["registration_ids": ["remove": [tablet, phone]]])
            #expect(remove.status == 200 && remove.body.isEmpty)
            #expect(try await app.info(phone).alias == "alice", "removing bob from a device that is alice leaves it alice")
            #expect(try await app.request("GET", "/v3/aliases/bob").json["registration_ids"] as? [String] == [other])
            let addRefused = try await app.request("POST", "/v3/aliases/bob", json: ["registration_ids": ["add": [phone]]])
            #expect(addRefused.status == 400 && addRefused.errorCode == 7002)

            #expect(try await app.request("DELETE", "/v3/aliases/alice").status == 200)
            #expect(try await app.info(phone).alias == nil)
            let badAlias = try await app.request("GET", "/v3/aliases/no%20space")
            #expect(badAlias.status == 400 && badAlias.errorCode == 7002)
        }
    }
}
