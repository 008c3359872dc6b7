import Foundation
import PostgresStore
@testable import RelayStore
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

    /// Android tokens import beside iOS ones: CSV lines with the platform column (mixed with
    /// lines of the first layout), NDJSON bodies with `"platform":"android"`.
    @Test func androidTokensImportWithThePlatformColumn() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let ios = DeviceClient.randomToken()
            var csv = "platform,token,environment,alias,tags\n"
            csv += "android,fcm:APA91-csv_1,,carol,droid\n"
            csv += "ios,\(ios),sandbox,dave,\n"
            csv += "\(DeviceClient.randomToken()),production\n"
            csv += "android,bad/token,,,\n"
            csv += "ios,\(DeviceClient.randomToken()),,,\n"
            let reply = try await post(app, csv, contentType: "text/csv")
            #expect(reply.json["accepted"] as? Int == 3 && reply.json["rejected"] as? Int == 2)
            #expect((reply.json["rejected_lines"] as? [[String: Any]])?.compactMap { $0["line"] as? Int } == [5, 6])
            let ndjson = #"{"platform":"android","token":"fcm:APA91-nd_2","alias":"erin"}"# + "\n"
            #expect(try await post(app, ndjson, contentType: "application/x-ndjson").json["created"] as? Int == 1)
            let carol = try #require(try await app.request("GET", "/v3/aliases/carol").json["registration_ids"] as? [String])
            let device = try #require(try await app.adminDevice(carol[0]))
            #expect(device["platform"] as? String == "android" && device["token"] as? String == "fcm:APA91-csv_1")
            #expect(device["environment"] is NSNull)
            #expect(try await app.info(carol[0]).tags == ["droid"])
            let erin = try #require(try await app.request("GET", "/v3/aliases/erin?platform=android").json["registration_ids"] as? [String])
            #expect(erin.count == 1)
        }
    }

    /// The same tokens imported again update the devices (same ids, new tags), and another
    /// app importing those tokens gets devices and tag rows of its own.
    /// An import that changes a tenth of the device tables, or more, analyzes them, so the
    /// planner does not take thousands of just-imported devices for a handful (a tag push
    /// then compared every device with every tagged one); smaller imports leave them alone.
    @Test func importsBigForTheirTablesRefreshItsStatistics() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            func rows(_ count: Int) -> String {
                (0..<count).map { _ in "\(DeviceClient.randomToken()),production,,news\n" }.joined()
            }
            func estimates() async throws -> [Int] {
                let row = try await relay.pool.query("""
                    SELECT (SELECT reltuples::bigint FROM pg_class WHERE oid = 'devices'::regclass) AS devices,
                           (SELECT reltuples::bigint FROM pg_class WHERE oid = 'device_tags'::regclass) AS tags
                    """)[0]
                return [try row.int("devices"), try row.int("tags")]
            }
            #expect(try await post(app, rows(5_000), contentType: "text/csv").json["created"] as? Int == 5_000)
            #expect(try await estimates() == [5_000, 5_000], "analyzed after the first import")
            #expect(try await post(app, rows(10), contentType: "text/csv").json["created"] as? Int == 10)
            #expect(try await estimates() == [5_000, 5_000], "ten devices are not worth an analyze")
            #expect(try await post(app, rows(600), contentType: "text/csv").json["created"] as? Int == 600)
            #expect(try await estimates() == [5_610, 5_610], "600 are more than a tenth")
        }
    }

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

    /// The app's id, for calling the importer directly.
    func appID(_ app: DeviceClient) async throws -> Int64 {
        let id = try await app.relay.pool.query("SELECT id FROM apps WHERE app_key = $1", [app.key]).first?.int("id")
        return Int64(try #require(id))
    }

    /// Every token appears three times, in the first, middle and last third of the file, with
    /// bad lines in between; cut into three ranges and three partitions, the last line for
    /// each token still wins and the counts and rejected line numbers are those of the file.
    @Test func duplicatesSpreadOverTheFileWithSeveralPartitions() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let tokens = (0..<200).map { _ in DeviceClient.randomToken() }
            var lines = ["token,environment,alias,tags"]
            for round in 0..<3 {
                for (index, token) in tokens.enumerated() {
                    lines.append("\(token),\(round == 2 ? "sandbox" : "production"),u\(index)r\(round),t\(round) t\(index % 7)")
                }
                lines.append("\(tokens[0].prefix(10)),sandbox,,")
            }
            let body = Array((lines.joined(separator: "\n") + "\n").utf8)
            let importer = DeviceImporter(appID: try await appID(app), format: .csv, partitions: 3)
            let summary = try await importer.run(body, pool: relay.pool, parsers: SlowWork(width: 2))
            #expect(summary.accepted == 600 && summary.rejected == 3)
            #expect(summary.created == 200 && summary.updated == 0)
            #expect(summary.firstRejections.map(\.line) == [202, 403, 604])

            let rows = try await relay.pool.query("""
                SELECT d.token, d.alias, d.environment, (SELECT string_agg(tag, ' ' ORDER BY tag) FROM device_tags t
                    WHERE t.app_id = d.app_id AND t.device_id = d.id) AS tags
                FROM devices d JOIN apps a ON a.id = d.app_id WHERE a.app_key = $1
                """, [app.key])
            #expect(rows.count == 200)
            let index = Dictionary(uniqueKeysWithValues: tokens.enumerated().map { ($1, $0) })
            var wrong = 0
            for row in rows {
                let i = try #require(index[try row.string("token")])
                let expectedTags = Set(["t2", "t\(i % 7)"]).sorted().joined(separator: " ")
                if try row.string("alias") != "u\(i)r2" || row.string("environment") != "sandbox" || row.string("tags") != expectedTags {
                    wrong += 1
                }
            }
            #expect(wrong == 0, "every device holds the values of its token's last line")

            // Again, reversed: the same tokens now update, and the first round's line is last.
            let again = Array((lines.reversed().filter { !$0.hasPrefix("token,") }.joined(separator: "\n")).utf8)
            let second = try await importer.run(again, pool: relay.pool, parsers: SlowWork(width: 2))
            #expect(second.accepted == 600 && second.created == 0 && second.updated == 200)
            #expect(second.firstRejections.map(\.line) == [1, 202, 403])
            let aliases = try await relay.pool.query("""
                SELECT count(*) FILTER (WHERE alias LIKE '%r0') AS first_round, count(*) AS n
                FROM devices d JOIN apps a ON a.id = d.app_id WHERE a.app_key = $1
                """, [app.key])
            #expect(try aliases.first?.int("first_round") == 200 && aliases.first?.int("n") == 200)
        }
    }

    /// A registration of one of the tokens commits while the import's partition is inserting
    /// it: the import waits for it, leaves that device as registered, counts the line as
    /// neither created nor updated, and stores everything else.
    @Test func aRegistrationDuringTheImportKeepsItsDevice() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let id = try await appID(app)
            let tokens = (0..<60).map { _ in DeviceClient.randomToken() }
            let contested = tokens[30]
            let (inserted, signal) = AsyncStream<Void>.makeStream()
            // A registration's transaction, held open until the import waits for it.
            async let held: Bool = relay.pool.withConnection { connection in
                try connection.query("BEGIN")
                try connection.query("INSERT INTO devices (app_id, token, environment, alias) VALUES ($1, $2, 'sandbox', 'registered')",
                                     [id, contested])
                signal.yield()
                signal.finish()
                let deadline = ContinuousClock.now + .seconds(10)
                var waited = false
                while !waited, ContinuousClock.now < deadline {
                    waited = try connection.query("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted")
                        .first?.int("n") ?? 0 > 0
                    if !waited { Thread.sleep(forTimeInterval: 0.005) }
                }
                try connection.query("COMMIT")
                return waited
            }
            for await _ in inserted { break }
            let body = Array(tokens.map { "\($0),production,imported,t\n" }.joined().utf8)
            let summary = try await DeviceImporter(appID: id, format: .csv, partitions: 2)
                .run(body, pool: relay.pool, parsers: SlowWork(width: 2))
            #expect(try await held, "the import waited for the registration's transaction")
            #expect(summary.accepted == 60 && summary.created == 59 && summary.updated == 0)
            let rows = try await relay.pool.query("""
                SELECT count(*) AS n, count(*) FILTER (WHERE alias = 'registered' AND token = $2) AS kept,
                       (SELECT count(*) FROM device_tags WHERE app_id = $1) AS tags
                FROM devices WHERE app_id = $1
                """, [id, contested])
            #expect(try rows.first?.int("n") == 60 && rows.first?.int("kept") == 1 && rows.first?.int("tags") == 59)
        }
    }

    /// One partition fails (a trigger refuses one token at COMMIT): the import answers with an
    /// error, and whatever it says was stored is exactly what the table holds.
    @Test func aFailingPartitionIsAnErrorThatTellsWhatWasStored() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let id = try await appID(app)
            let tokens = (0..<100).map { _ in DeviceClient.randomToken() }
            let poisoned = tokens[0]
            let poisonedPartition = DeviceImportPartitioning.partition(ofToken: poisoned, count: 2)
            #expect(tokens.contains { DeviceImportPartitioning.partition(ofToken: $0, count: 2) != poisonedPartition })
            let trigger = """
                CREATE FUNCTION refuse_token() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
                CREATE CONSTRAINT TRIGGER refuse_token AFTER INSERT ON devices DEFERRABLE INITIALLY DEFERRED
                    FOR EACH ROW WHEN (NEW.app_id = \(id) AND NEW.token = '\(poisoned)') EXECUTE FUNCTION refuse_token();
                """
            try await relay.pool.withConnection { try $0.execute(trigger) }
            let body = Array(tokens.map { "\($0),production,,a\n" }.joined().utf8)
            let importer = DeviceImporter(appID: id, format: .csv, partitions: 2)
            let failure = await #expect(throws: DeviceImportFailure.self) {
                _ = try await importer.run(body, pool: relay.pool, parsers: SlowWork(width: 2))
            }
            let stored = try await relay.pool.query("""
                SELECT count(*) AS n, count(*) FILTER (WHERE token = ANY ($2::text[])) AS from_failed
                FROM devices WHERE app_id = $1
                """, [id, SQLArray.text(tokens.filter { DeviceImportPartitioning.partition(ofToken: $0, count: 2) == poisonedPartition })])
            let row = try #require(stored.first)
            #expect(try row.int("from_failed") == 0, "nothing of the failed partition is stored")
            if let failure {
                #expect(try row.int("n") == failure.created, "the answer claims exactly the stored devices")
                #expect((failure.partialStorage != nil) == (failure.created > 0))
                #expect(failure.partialStorage?.contains("again is safe") ?? true)
            }

            // Through the route: an error status, never a 200 summary.
            let reply = try await post(app, String(decoding: body, as: UTF8.self), contentType: "text/csv")
            #expect(reply.status == 500 && reply.errorCode == 7000, "\(String(decoding: reply.body, as: UTF8.self))")
            let after = try #require(try await relay.pool.query("SELECT count(*) AS n FROM devices WHERE app_id = $1", [id]).first)
            if reply.errorMessage?.contains("stored only in part") != true {
                #expect(try after.int("n") == row.int("n"), "an error that claims nothing stored nothing")
            }
        }
    }

    @Test func partitionsAreStableAndRangesCoverTheBody() {
        let tokens = (0..<2000).map { _ in DeviceClient.randomToken() }
        let counts = tokens.reduce(into: [0, 0, 0]) { $0[DeviceImportPartitioning.partition(ofToken: $1, count: 3)] += 1 }
        #expect(counts.allSatisfy { (500...830).contains($0) }, "\(counts)")
        // FNV-1a of "" and of "a", fixed so that a process restart cannot move a token.
        #expect(DeviceImportPartitioning.partition(ofToken: "", count: 1000) == Int(UInt64(0xcbf2_9ce4_8422_2325) % 1000))
        #expect(DeviceImportPartitioning.partition(ofToken: "a", count: 1000) == Int(UInt64(0xaf63_dc4c_8601_ec8c) % 1000))

        for text in ["", "x", "no newline at all", "a\nb\nc\n", "\n\n\n\n", "long line\nb\n" + String(repeating: "z", count: 100)] {
            let body = Array(text.utf8)
            for count in 1...5 {
                let ranges = DeviceImportPartitioning.ranges(of: body, count: count)
                #expect(ranges.count <= count && ranges.allSatisfy { !$0.isEmpty })
                #expect(ranges.first?.lowerBound ?? 0 == 0 && ranges.last?.upperBound ?? 0 == body.count, "\(text) \(count)")
                #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound && body[$0.upperBound - 1] == 0x0A })
            }
        }
    }

    /// Parsing in ranges and partitions gives the summary of parsing the body whole, and puts
    /// every line for a token in that token's partition.
    @Test func rangesAndPartitionsParseLikeTheWholeBody() throws {
        let tokens = (0..<50).map { _ in DeviceClient.randomToken() }
        var lines: [String] = []
        for index in 0..<400 {
            lines.append(index % 9 == 4 ? "bad line \(index)" : index % 13 == 0 ? "" : "\(tokens[index % 50]),sandbox,a\(index),")
        }
        let body = Array(lines.joined(separator: "\r\n").utf8)
        func summary(ranges: Int, partitions: Int) -> (DeviceImportSummary, [DeviceImportParse]) {
            let parser = DeviceImportParser(format: .csv, partitions: partitions)
            let parses = DeviceImportPartitioning.ranges(of: body, count: ranges).map { parser.parse(body, range: $0) }
            var summary = DeviceImportSummary()
            var lineCount = 0
            for parse in parses {
                summary.append(parse.summary, lineOffset: lineCount)
                lineCount += parse.lines
            }
            #expect(lineCount == 400)
            return (summary, parses)
        }
        let (whole, _) = summary(ranges: 1, partitions: 1)
        let bad = (0..<400).filter { $0 % 9 == 4 }.count, blank = (0..<400).filter { $0 % 9 != 4 && $0 % 13 == 0 }.count
        #expect(whole.rejected == bad && whole.accepted == 400 - bad - blank)
        #expect(whole.firstRejections.first?.line == 5 && whole.firstRejections.count == DeviceImportSummary.rejectionsShown)
        for (ranges, partitions) in [(3, 3), (4, 2), (7, 5)] {
            let (split, parses) = summary(ranges: ranges, partitions: partitions)
            #expect(split == whole, "\(ranges) ranges, \(partitions) partitions")
            for partition in 0..<partitions {
                let text = parses.flatMap { $0.chunks[partition].map { String(decoding: $0, as: UTF8.self) } }.joined()
                let rows = text.split(separator: "\n")
                #expect(rows.count == parses.reduce(0) { $0 + $1.rowsPerPartition[partition] })
                #expect(rows.allSatisfy { DeviceImportPartitioning.partition(ofToken: String($0.split(separator: "\t")[2]), count: partitions) == partition })
            }
        }
    }

    @Test func outcomeCountsOnlyCommittedPartitions() throws {
        var parsed = DeviceImportSummary()
        parsed.accepted = 10
        let all = DeviceImportOutcome.decide(parsed: parsed, results: [.committed(rows: 6, created: 4, updated: 1),
                                                                       .committed(rows: 4, created: 1, updated: 3)])
        let summary = try all.get()
        #expect(summary.accepted == 10 && summary.created == 5 && summary.updated == 4)

        struct Boom: Error {}
        let partial = DeviceImportOutcome.decide(parsed: parsed, results: [.committed(rows: 6, created: 4, updated: 1),
                                                                           .failed(rows: 3, error: Boom()), .rolledBack(rows: 1)])
        guard case .failure(let failure) = partial else { Issue.record("a failed partition is a failure"); return }
        #expect(failure.cause is Boom && failure.committed == 1 && failure.storedRows == 6 && failure.unstoredRows == 4)
        #expect(failure.created == 4 && failure.updated == 1)
        #expect(failure.partialStorage?.contains("2 of its 3 partitions") == true)
        #expect(failure.partialStorage?.contains("4 devices created, 1 updated") == true)

        let none = DeviceImportOutcome.decide(parsed: parsed, results: [.failed(rows: 6, error: Boom()), .rolledBack(rows: 4)])
        guard case .failure(let nothing) = none else { Issue.record("a failed partition is a failure"); return }
        #expect(nothing.partialStorage == nil && nothing.created == 0)
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
