import Foundation
import Testing
@testable import RelayAPI

/// `POST /v3/devices/import`: NDJSON and CSV, good and bad lines, through COPY.
@Suite struct DeviceImportTests {
    func post(_ app: DeviceClient, _ body: String, contentType: String) async throws -> RelayHarness.Reply {
        try await app.relay.request("POST", "/v3/devices/import", auth: .basic(app.key, app.secret), body: Data(body.utf8),
                                    headers: ["Content-Type": contentType])
    }

    @Test func ndjsonWithGoodAndBadLines() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let existingToken = DeviceClient.randomToken()
            let existing = try await app.register(token: existingToken, environment: "sandbox", extra: ["alias": "keep", "tags": ["old"]])
            let t1 = DeviceClient.randomToken(), t2 = DeviceClient.randomToken()
            let lines = [
                #"{"platform":"ios","token":"\#(t1)","environment":"production","alias":"alice","tags":["vip","beta"],"badge":2}"#,
                #"{"platform":"ios","token":"<\#(t2.uppercased())>","environment":"sandbox"}"#,
                #"{"platform":"ios","token":"abc","environment":"sandbox"}"#,
                "",
                #"{"platform":"ios","token":"\#(existingToken)","environment":"production","tags":["new"]}"#,
                #"not json"#,
                #"{"platform":"ios","token":"\#(t1)","environment":"production","alias":"alice2","tags":["vip"]}"#,
                #"{"platform":"ios","token":"\#(DeviceClient.randomToken())","environment":"staging"}"#,
                #"{"platform":"ios","token":"\#(DeviceClient.randomToken())","environment":"sandbox","tags":["bad tag"]}"#,
            ]
            let reply = try await post(app, lines.joined(separator: "\r\n") + "\n", contentType: "application/x-ndjson; charset=utf-8")
            #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
            #expect(reply.json["accepted"] as? Int == 4 && reply.json["rejected"] as? Int == 4)
            #expect(reply.json["created"] as? Int == 2 && reply.json["updated"] as? Int == 1)
            let rejected = reply.json["rejected_lines"] as? [[String: Any]] ?? []
            #expect(rejected.compactMap { $0["line"] as? Int } == [3, 6, 8, 9])
            #expect((rejected.first?["reason"] as? String)?.contains("64 to 200") == true)
            #expect((rejected.last?["reason"] as? String)?.contains("bad tag") == true)

            let refreshed = try await app.info(existing)
            #expect(refreshed.tags == ["new"] && refreshed.alias == "keep", "the existing device keeps its id and alias, takes the new tags")
            #expect(try await app.adminDevice(existing)?["environment"] as? String == "production")
            let aliceIDs = try await app.request("GET", "/v3/aliases/alice2").json["registration_ids"] as? [String] ?? []
            #expect(aliceIDs.count == 1, "the last line for a token wins")
            let alice = try await app.info(aliceIDs[0])
            #expect(alice.tags == ["vip"])
            #expect(try await app.adminDevice(aliceIDs[0])?["badge"] as? Int == 0, "the winning line gave no badge")
            #expect(try await app.register(token: t2) == (try await relay.pool.query(
                "SELECT replace(registration_id::text, '-', '') AS rid FROM devices WHERE token = $1", [t2]).first?.string("rid")),
                "imported tokens are normalised like registered ones")
        }
    }

    @Test func csvWithHeaderQuotesAndBadRows() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let t1 = DeviceClient.randomToken(), t2 = DeviceClient.randomToken()
            var csv = "token,environment,alias,tags\n"
            csv += "\(t1),production,bob,vip early\n"
            csv += "\"\(t2)\",sandbox,,\n"
            csv += "\(t1.prefix(10)),sandbox,,\n"
            csv += "\(DeviceClient.randomToken()),production,\"unclosed\n"
            csv += "\(DeviceClient.randomToken())\n"
            let reply = try await post(app, csv, contentType: "text/csv")
            #expect(reply.status == 200)
            #expect(reply.json["accepted"] as? Int == 2 && reply.json["rejected"] as? Int == 3)
            #expect((reply.json["rejected_lines"] as? [[String: Any]])?.compactMap { $0["line"] as? Int } == [4, 5, 6])
            let bob = try await app.request("GET", "/v3/aliases/bob").json["registration_ids"] as? [String] ?? []
            #expect(bob.count == 1)
            #expect(try await app.info(bob[0]).tags == ["early", "vip"])
            #expect(try await app.request("GET", "/v3/tags").json["tags"] as? [String] == ["early", "vip"])
        }
    }

    /// The same tokens imported again update the devices (same ids, new tags), and another
    /// app importing those tokens gets devices and tag rows of its own.
    @Test func reimportUpdatesAndStaysInItsApp() async throws {
        try await RelayHarness.with { relay in
            let a = try await DeviceClient.make(relay), b = try await DeviceClient.make(relay)
            let tokens = (0..<20).map { _ in DeviceClient.randomToken() }
            let first = tokens.map { "\($0),production,,one two\n" }.joined()
            let created = try await post(a, first, contentType: "text/csv")
            #expect(created.json["created"] as? Int == 20 && created.json["updated"] as? Int == 0)
            let idsQuery = "SELECT array_agg(id ORDER BY id)::text AS ids FROM devices WHERE app_id = (SELECT id FROM apps WHERE app_key = $1)"
            let idsBefore = try await relay.pool.query(idsQuery, [a.key]).first?.string("ids")
            let again = try await post(a, tokens.map { "\($0),sandbox,,two three\n" }.joined(), contentType: "text/csv")
            #expect(again.json["created"] as? Int == 0 && again.json["updated"] as? Int == 20)
            let other = try await post(b, first, contentType: "text/csv")
            #expect(other.json["created"] as? Int == 20 && other.json["updated"] as? Int == 0)

            let rows = try await relay.pool.query("""
                SELECT (SELECT array_agg(id ORDER BY id)::text FROM devices WHERE app_id = (SELECT id FROM apps WHERE app_key = $1)) AS ids,
                       (SELECT count(*) FROM devices WHERE app_id = (SELECT id FROM apps WHERE app_key = $1) AND environment = 'sandbox') AS sandbox,
                       (SELECT string_agg(DISTINCT tag, ' ' ORDER BY tag) FROM device_tags WHERE app_id = (SELECT id FROM apps WHERE app_key = $1)) AS a_tags,
                       (SELECT string_agg(DISTINCT tag, ' ' ORDER BY tag) FROM device_tags WHERE app_id = (SELECT id FROM apps WHERE app_key = $2)) AS b_tags,
                       (SELECT count(*) FROM device_tags WHERE app_id = (SELECT id FROM apps WHERE app_key = $1)) AS a_rows,
                       (SELECT count(*) FROM device_tags t JOIN devices d ON d.id = t.device_id WHERE d.app_id <> t.app_id) AS crossed
                """, [a.key, b.key])
            let row = try #require(rows.first)
            #expect(try row.string("ids") == idsBefore, "re-import keeps the devices")
            #expect(try row.int("sandbox") == 20)
            #expect(try row.string("a_tags") == "three two" && row.int("a_rows") == 40, "tags replaced, not added")
            #expect(try row.string("b_tags") == "one two")
            #expect(try row.int("crossed") == 0, "every tag row names a device of its own app")
        }
    }

    @Test func refusedImports() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let json = try await post(app, "{}", contentType: "application/json")
            #expect(json.status == 400 && json.errorCode == 7002 && json.errorMessage?.contains("x-ndjson") == true)
            let empty = try await post(app, "", contentType: "text/csv")
            #expect(empty.status == 400 && empty.errorCode == 7002)
            let unauthorised = try await relay.request("POST", "/v3/devices/import", auth: .basic(app.key, "nope"),
                                                       body: Data("x".utf8), headers: ["Content-Type": "text/csv"])
            #expect(unauthorised.status == 401 && unauthorised.errorCode == 7004)
            // Only the first rejections are listed; all are counted.
            let bad = (0..<50).map { _ in "zz,sandbox" }.joined(separator: "\n")
            let reply = try await post(app, bad, contentType: "text/csv")
            #expect(reply.json["rejected"] as? Int == 50 && reply.json["accepted"] as? Int == 0)
            #expect((reply.json["rejected_lines"] as? [Any])?.count == DeviceImportSummary.rejectionsShown)
        }
    }

    @Test func copyRowsAndCSVFieldsAreEscapedAndSplit() {
        var row = CopyTextRow()
        row.field("a\tb\\c\nd")
        row.field(nil)
        row.endRow()
        #expect(String(decoding: row.bytes, as: UTF8.self) == "a\\tb\\\\c\\nd\t\\N\n")
        #expect(CSVLine.fields(ArraySlice(Array(#"a,"b,""c""",,d"#.utf8))) == ["a", #"b,"c""#, "", "d"])
        #expect(CSVLine.fields(ArraySlice(Array(#"a,"b"#.utf8))) == nil)
        #expect(DeviceImportFormat(contentType: "text/csv; charset=utf-8") == .csv)
        #expect(DeviceImportFormat(contentType: "application/x-ndjson") == .ndjson)
        #expect(DeviceImportFormat(contentType: "application/json") == nil)
    }
}
