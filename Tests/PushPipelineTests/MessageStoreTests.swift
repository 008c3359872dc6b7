import Foundation
import PostgresStore
import PushCore
@testable import PushPipeline
import RelayCore
import Synchronization
import Testing
import TestSupport

/// Accepting a push is one statement: what it leaves in the database, without a worker.
@Suite(.serialized) struct MessageStoreTests {
    private func push(_ json: String) throws -> (PushRequest, [UInt8]) {
        let body = Array(json.utf8)
        return (try PushRequest.parse(body), body)
    }

    @Test func aTargetedPushIsCutIntoChunksUpToTheInlineLimitAndTheRestLeftToResolvers() async throws {
        try await TestDatabase.withMigratedPool { pool in
            let app = Int64(try await pool.query("""
                INSERT INTO apps (app_key, name, secret_hash) VALUES ('0123456789abcdef0123456a', 'm', 'h') RETURNING id
                """)[0].int("id"))
            let ids = try await pool.query("""
                INSERT INTO devices (app_id, token, environment, alias)
                SELECT $1, lpad(to_hex(i), 64, '0'), 'production', CASE WHEN i <= 7 THEN 'many' ELSE 'few' END
                FROM generate_series(1, 9) i RETURNING id
                """, [app]).map { Int64(try $0.int("id")) }.sorted()
            let store = MessageStore(pool: pool, chunkSize: 2, inlineLimit: 5)

            // Seven devices, five cut now in chunks of two; the resolvers go on from the fifth.
            let (many, body) = try push(#"{"platform":"ios","audience":{"alias":["many"]},"notification":{"alert":"a"},"options":{"apns_production":true}}"#)
            let accepted = try await store.accept(appID: app, request: many, body: body)
            #expect(accepted.isNew)
            let message = try await pool.query("""
                SELECT state, lane, target_count, chunks_pending, resolve_cursor, environment FROM messages WHERE id = $1
                """, [accepted.msgID.rawValue])[0]
            #expect(message["state"] == "resolving" && message["lane"] == "targeted" && message["environment"] == "production")
            #expect(try message.int("target_count") == 5 && message.int("chunks_pending") == 3)
            #expect(Int64(try message.int("resolve_cursor")) == ids[4])
            let chunks = try await pool.query("SELECT device_ids::text AS ids FROM push_chunks WHERE message_id = $1 ORDER BY id",
                                              [accepted.msgID.rawValue]).map { try $0.string("ids") }
            #expect(chunks == ["{\(ids[0]),\(ids[1])}", "{\(ids[2]),\(ids[3])}", "{\(ids[4])}"])

            // Two devices: every chunk made now, the message sending.
            let (few, fewBody) = try push(#"{"platform":"ios","audience":{"alias":["few"]},"notification":{"alert":"b"},"cid":"c-1"}"#)
            let small = try await store.accept(appID: app, request: few, body: fewBody)
            let row = try await pool.query("SELECT state, target_count, chunks_pending, environment FROM messages WHERE id = $1",
                                           [small.msgID.rawValue])[0]
            #expect(row["state"] == "sending" && row["environment"] == "production", "apns_production is true by default")
            #expect(try row.int("target_count") == 2 && row.int("chunks_pending") == 1)
            // The same cid again: the first answer, nothing new stored.
            let again = try await store.accept(appID: app, request: few, body: fewBody)
            #expect(again.msgID == small.msgID && !again.isNew)
            #expect(try await pool.query("SELECT count(*) AS n FROM messages")[0].int("n") == 2)

            // Nobody: 1011 with a msg_id, nothing stored.
            let (nobody, nobodyBody) = try push(#"{"platform":"ios","audience":{"alias":["nobody"]},"notification":{"alert":"c"}}"#)
            await #expect(throws: JPushError.self) { try await store.accept(appID: app, request: nobody, body: nobodyBody) }
            let (everyone, everyoneBody) = try push(#"{"platform":"ios","audience":"all","notification":{"alert":"d"},"options":{"apns_production":true}}"#)
            let broadcast = try await store.accept(appID: app, request: everyone, body: everyoneBody)
            #expect(try await pool.query("SELECT state FROM messages WHERE id = $1", [broadcast.msgID.rawValue])[0]["state"] == "resolving")
            // Android with no Android device: 1011 like any audience without anyone.
            let (android, androidBody) = try push(#"{"platform":"android","audience":"all","notification":{"alert":"e"}}"#)
            await #expect(throws: JPushError.self) { try await store.accept(appID: app, request: android, body: androidBody) }
            // No platform this relay delivers to: accepted, and done at once.
            let (winphone, winphoneBody) = try push(#"{"platform":"winphone","audience":"all","notification":{"alert":"e"}}"#)
            let other = try await store.accept(appID: app, request: winphone, body: winphoneBody)
            #expect(try await pool.query("SELECT state FROM messages WHERE id = $1", [other.msgID.rawValue])[0]["state"] == "done")
            #expect(try await pool.query("SELECT count(*) AS n FROM messages")[0].int("n") == 4)
        }
    }

    /// A broadcast to both platforms is cut iOS first, then Android from the first device,
    /// a chunk per platform; spread over `big_push_duration` per platform; a targeted push
    /// past the inline limit goes on with both platforms. Every device counted once, the
    /// Android ones apart.
    @Test func aPushToBothPlatformsIsCutPlatformByPlatform() async throws {
        try await TestDatabase.withMigratedPool { pool in
            let app = Int64(try await pool.query("""
                INSERT INTO apps (app_key, name, secret_hash) VALUES ('0123456789abcdef0123456f', 'p', 'h') RETURNING id
                """)[0].int("id"))
            // Interleaved ids: iOS and Android devices alternate, all with the alias "both".
            try await pool.query("""
                INSERT INTO devices (app_id, token, platform, environment, alias)
                SELECT $1, CASE WHEN i % 2 = 0 THEN lpad(to_hex(i), 64, '0') ELSE 'fcm-' || i END,
                       CASE WHEN i % 2 = 0 THEN 'ios' ELSE 'android' END, CASE WHEN i % 2 = 0 THEN 'production' END, 'both'
                FROM generate_series(1, 10) i
                """, [app])
            let store = MessageStore(pool: pool, chunkSize: 2, inlineLimit: 3)
            let resolver = AudienceResolver(pool: pool, chunkMaker: ChunkMaker(chunkSize: 2), sliceSize: 4)
            func resolveAll() async throws {
                while try await resolver.resolveNextSlice() != .idle {}
            }
            func chunks(_ message: MessageStore.Accepted) async throws -> [String] {
                try await pool.query("""
                    SELECT platform, cardinality(device_ids) AS n, available_at <= now() + interval '601 seconds' AS within
                    FROM push_chunks WHERE message_id = $1 ORDER BY id
                    """, [message.msgID.rawValue]).map { "\(try $0.string("platform"))\(try $0.int("n"))\(try $0.bool("within") ? "" : "late")" }
            }
            func counts(_ message: MessageStore.Accepted) async throws -> String {
                let row = try await pool.query("SELECT state, target_count, android_target_count FROM messages WHERE id = $1",
                                               [message.msgID.rawValue])[0]
                return "\(try row.string("state")) \(try row.int("target_count")) \(try row.int("android_target_count"))"
            }

            let (broadcast, broadcastBody) = try push(#"{"platform":"all","audience":"all","notification":{"alert":"b"},"options":{"big_push_duration":10}}"#)
            let spread = try await store.accept(appID: app, request: broadcast, body: broadcastBody)
            try await resolveAll()
            #expect(try await chunks(spread) == ["ios2", "ios2", "ios1", "android2", "android2", "android1"])
            #expect(try await counts(spread) == "sending 10 5")

            let (targeted, targetedBody) = try push(#"{"platform":"all","audience":{"alias":["both"]},"notification":{"alert":"t"}}"#)
            let many = try await store.accept(appID: app, request: targeted, body: targetedBody)
            // The first three devices cut at once (Android, iOS, Android), in a chunk per platform.
            #expect(try await counts(many) == "resolving 3 2")
            #expect(try await chunks(many) == ["android2", "ios1"])
            try await resolveAll()
            #expect(try await counts(many) == "sending 10 5")
            #expect(try await chunks(many).sorted() == ["android1", "android2", "android2", "ios1", "ios2", "ios2"])
        }
    }

    /// Concurrent pushes share transactions (group commit); each is answered with its own
    /// msg_id or its own error, a repeated cid inside one transaction answers the first push,
    /// and a batch API's pushes are one commit.
    @Test func concurrentPushesShareCommitsAndEachGetsItsOwnAnswer() async throws {
        try await TestDatabase.withMigratedPool { pool in
            let app = Int64(try await pool.query("""
                INSERT INTO apps (app_key, name, secret_hash) VALUES ('0123456789abcdef0123456b', 'g', 'h') RETURNING id
                """)[0].int("id"))
            try await pool.query("""
                INSERT INTO devices (app_id, token, environment, alias)
                SELECT $1, lpad(to_hex(i), 64, '0'), 'production', 'u' || i FROM generate_series(0, 49) i
                """, [app])
            let store = MessageStore(pool: pool)
            func submission(_ alias: String, cid: String? = nil) throws -> MessageStore.Submission {
                let extra = cid.map { ",\"cid\":\"\($0)\"" } ?? ""
                let body = Array("{\"platform\":\"ios\",\"audience\":{\"alias\":[\"\(alias)\"]},\"notification\":{\"alert\":\"a\"}\(extra)}".utf8)
                return MessageStore.Submission(appID: app, request: try PushRequest.parse(body), body: body)
            }
            // 50 users, 10 of them twice with the same cid, and one nobody is.
            let submissions = try (0..<50).map { try submission("u\($0)") } + (0..<10).map { try submission("u\($0)", cid: "order-\($0 % 5)") }
                + [submission("nobody")]
            let answers = try await withThrowingTaskGroup(of: (Int, Result<MessageStore.Accepted, any Error>).self) { group in
                for (index, submission) in submissions.enumerated() {
                    group.addTask {
                        do {
                            return (index, .success(try await store.accept(appID: app, request: submission.request, body: submission.body)))
                        } catch { return (index, .failure(error)) }
                    }
                }
                return try await group.reduce(into: [Int: Result<MessageStore.Accepted, any Error>]()) { $0[$1.0] = $1.1 }
            }
            let plain = try (0..<50).map { try answers[$0]!.get() }
            #expect(Set(plain.map(\.msgID)).count == 50 && plain.allSatisfy(\.isNew))
            // Each cid once: its pushes share the first's answer, wherever they landed.
            let withCID = try (50..<60).map { try answers[$0]!.get() }
            for cid in 0..<5 {
                let same = [withCID[cid], withCID[cid + 5]]
                #expect(same[0].msgID == same[1].msgID && same.filter(\.isNew).count == 1)
            }
            #expect(throws: JPushError.self) { try answers[60]!.get() }
            let stored = try await pool.query("SELECT count(*) AS n, count(DISTINCT xmin::text) AS commits FROM messages")[0]
            #expect(try stored.int("n") == 55)
            #expect(try stored.int("commits") < 55, "concurrent pushes shared transactions")

            // A batch API's pushes: one commit, the bad one failing alone.
            let batch = try await store.acceptAll([submission("u1"), submission("nobody"), submission("u2"), submission("u0", cid: "order-0")])
            #expect(throws: JPushError.self) { try batch[1].get() }
            #expect(try batch[3].get().msgID == withCID[0].msgID)
            let ids = try [batch[0].get().msgID.rawValue, batch[2].get().msgID.rawValue]
            #expect(try await pool.query("SELECT count(DISTINCT xmin::text) AS n FROM messages WHERE id = ANY ($1::bigint[])",
                                         [SQLArray.bigint(ids)])[0].int("n") == 1)
        }
    }

    /// A batch API's targeted pushes share one statement (`TargetedBatch`): to aliases and to
    /// registration ids, beside a tag push accepted alone; a cid repeated inside the batch
    /// answers the first; a push of one chunk is leased to the reserved slot and read for
    /// it, a push of more chunks is left to the workers, and every other slot is given back
    /// (a tag push reserves none).
    @Test func aBatchOfTargetedPushesIsOneStatementWithEachItsOwnAnswer() async throws {
        try await TestDatabase.withMigratedPool { pool in
            let app = Int64(try await pool.query("""
                INSERT INTO apps (app_key, name, secret_hash) VALUES ('0123456789abcdef0123456c', 'b', 'h') RETURNING id
                """)[0].int("id"))
            let devices = try await pool.query("""
                INSERT INTO devices (app_id, token, environment, alias, badge)
                SELECT $1, lpad(to_hex(i), 64, '0'), 'production', CASE WHEN i < 3 THEN 'u' || i ELSE 'crowd' END, i
                FROM generate_series(0, 5) i RETURNING id, alias, registration_id::text AS rid
                """, [app])
            let rid = try devices.first { $0["alias"] == "u2" }!.string("rid").replacingOccurrences(of: "-", with: "")
            let receiver = Slots()
            let store = MessageStore(pool: pool, chunkSize: 2, handoffs: receiver)
            func submission(_ audience: String, cid: String? = nil) throws -> MessageStore.Submission {
                let extra = cid.map { ",\"cid\":\"\($0)\"" } ?? ""
                let body = Array("{\"platform\":\"ios\",\"audience\":\(audience),\"notification\":{\"ios\":{\"alert\":\"a\",\"badge\":\"+1\"}}\(extra)}".utf8)
                return MessageStore.Submission(appID: app, request: try PushRequest.parse(body), body: body)
            }
            let answers = await store.acceptAll([
                try submission(#"{"alias":["u0"]}"#), try submission(#"{"alias":["u1"]}"#, cid: "k"), try submission(#"{"alias":["nobody"]}"#),
                try submission("{\"registration_id\":[\"\(rid)\"]}"), try submission(#"{"alias":["u0"]}"#, cid: "k"),
                try submission(#"{"alias":["crowd"]}"#), try submission(#"{"tag":["none"]}"#),
            ])
            let u0 = try answers[0].get(), u1 = try answers[1].get(), byRID = try answers[3].get(), crowd = try answers[5].get()
            #expect(u0.isNew && u1.isNew && byRID.isNew && crowd.isNew)
            #expect(throws: JPushError.self) { try answers[2].get() }
            #expect(throws: JPushError.self) { try answers[6].get() }
            let repeated = try answers[4].get()
            #expect(repeated.msgID == u1.msgID && !repeated.isNew, "the cid's first push answers")
            // One transaction, the four stored pushes in it.
            let stored = try await pool.query("""
                SELECT count(*) AS n, count(DISTINCT xmin::text) AS commits, sum(chunks_pending) AS chunks FROM messages
                """)[0]
            #expect(try stored.int("n") == 4 && stored.int("commits") == 1 && stored.int("chunks") == 5)
            // The single-chunk pushes were handed over, read, with their devices' stored badges;
            // the crowd's two chunks wait for a worker.
            let handed = receiver.handed.withLock { $0 }
            #expect(Set(handed.map(\.chunk.messageID)) == Set([u0, u1, byRID].map(\.msgID.rawValue)))
            for (chunk, loaded) in handed {
                #expect(chunk.leases == 1 && loaded.messageState == .sending && loaded.targets.count == 1)
                #expect(loaded.targets.first?.storedBadge == (chunk.messageID == u1.msgID.rawValue ? 1 : chunk.messageID == u0.msgID.rawValue ? 0 : 2))
            }
            #expect(receiver.returned.withLock { $0 } == 3, "the slots of nobody, the repeat and the crowd came back")
            let chunks = try await pool.query("SELECT state, count(*) AS n FROM push_chunks GROUP BY state ORDER BY state")
                .map { "\(try $0.string("state"))=\(try $0.int("n"))" }
            #expect(chunks == ["leased=3", "ready=2"])
        }
    }

    /// A worker's slots, each handed chunk kept.
    private final class Slots: HandoffReceiver {
        let handed = Mutex<[(chunk: LeasedChunk, loaded: LoadedChunk)]>([])
        let returned = Mutex(0)

        func reserveHandoff() -> Handoff? {
            Handoff(owner: "test-worker", leaseSeconds: 30) { [self] chunk in
                if let chunk { handed.withLock { $0.append(chunk) } } else { returned.withLock { $0 += 1 } }
            }
        }
    }

    /// A targeted push finds an alias's devices through `devices_alias` in the generic plan
    /// the pool settles on (an app of 1,000 devices, analysed), in the accepting statements
    /// and in the resolver's: not by walking the app's devices in id order for `ORDER BY id
    /// LIMIT` and testing each for the alias.
    @Test func aTargetedPushFindsItsAliasThroughTheAliasIndex() async throws {
        try await TestDatabase.withMigratedPool { pool in
            _ = try await pool.query("""
                WITH app AS (INSERT INTO apps (app_key, name, secret_hash) VALUES ('0123456789abcdef0123456a', 'p', 'h') RETURNING id)
                INSERT INTO devices (app_id, token, environment, alias)
                SELECT app.id, lpad(to_hex(i), 64, '0'), 'production', 'u' || i FROM app, generate_series(0, 999) AS i
                """)
            _ = try await pool.query("ANALYZE devices")
            let statements = [AudienceStatements.acceptTargeted, AudienceStatements.acceptTargetedHandoff, AudienceStatements.makeChunks]
                .map { $0[.aliases, .ios] }
            for statement in statements {
                let plan = try await pool.withConnection { connection in
                    try connection.query("PREPARE alias_plan AS " + statement.text)
                    try connection.query("SET plan_cache_mode = force_generic_plan")
                    defer {
                        _ = try? connection.query("RESET plan_cache_mode")
                        _ = try? connection.query("DEALLOCATE alias_plan")
                    }
                    let count = try connection.query("SELECT cardinality(parameter_types) AS n FROM pg_prepared_statements WHERE name = 'alias_plan'")[0]
                        .int("n")
                    let arguments = Array(repeating: "NULL", count: count).joined(separator: ", ")
                    return try connection.query("EXPLAIN EXECUTE alias_plan(\(arguments))").map { try $0.string("QUERY PLAN") }.joined(separator: "\n")
                }
                #expect(plan.contains("devices_alias"), "\(statement.name): \(plan)")
                #expect(!plan.contains("Filter: (alias = ANY"), "\(statement.name): \(plan)")
            }
        }
    }

    /// The override's look-up of the overridden message's collapse id reads one row through
    /// an index on its id (and app), however many messages are stored.
    @Test func theOverriddenMessageIsReadByItsPrimaryKey() async throws {
        try await TestDatabase.withMigratedPool { pool in
            let plan = try await pool.withConnection { connection in
                try connection.query("PREPARE overridden_plan(bigint, bigint) AS " + AudienceStatements.overridden.text)
                try connection.query("SET plan_cache_mode = force_generic_plan")
                defer {
                    _ = try? connection.query("RESET plan_cache_mode")
                    _ = try? connection.query("DEALLOCATE overridden_plan")
                }
                return try connection.query("EXPLAIN EXECUTE overridden_plan(1, 1)").map { try $0.string("QUERY PLAN") }.joined(separator: "\n")
            }
            #expect(plan.contains("Index Scan") && plan.contains("id = $1") && !plan.contains("Seq Scan"), "\(plan)")
        }
    }
}
