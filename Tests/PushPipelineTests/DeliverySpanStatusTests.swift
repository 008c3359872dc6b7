import Foundation
import PostgresStore
@testable import PushPipeline
import Testing
import TestSupport

/// `POST /v3/devices/status` through `delivery_spans` (migrations 0023, 0025) after real
/// outcome writes: the answer is always the one a plain scan of the spans gives — the latest
/// `at` of the app's spans holding the device's id, or its registration — checked device by
/// device.
@Suite(.serialized) struct DeliverySpanStatusTests {
    static let registered = "2026-01-02 03:04:05"
    static var broadcast: [String: Any] { ["platform": "ios", "audience": "all", "notification": ["alert": "news"]] }

    /// The API's answer for every device of the app, by token: (online, last_online_time),
    /// asked 1000 at a time (the API's limit).
    private func status(_ relay: PipelineHarness, _ app: PipelineHarness.App) async throws -> [String: (Bool, String)] {
        let devices = try await relay.pool.query("""
            SELECT token, replace(registration_id::text, '-', '') AS rid FROM devices WHERE app_id = $1
            """, [app.id]).map { (try $0.string("token"), try $0.string("rid")) }
        var result: [String: (Bool, String)] = [:]
        for start in stride(from: 0, to: devices.count, by: 1000) {
            let batch = devices[start..<min(start + 1000, devices.count)]
            let reply = try await relay.request("POST", "/v3/devices/status", auth: app.auth, json: ["registration_ids": batch.map(\.1)])
            #expect(reply.status == 200, "\(reply.text)")
            let json = reply.json
            for (token, rid) in batch {
                let entry = json[rid] as? [String: Any]
                result[token] = (entry?["online"] as? Bool ?? false, entry?["last_online_time"] as? String ?? "missing")
            }
        }
        return result
    }

    /// What the spans say when every one of them is read, without the index or the walk.
    private func truth(_ relay: PipelineHarness, _ app: PipelineHarness.App) async throws -> [String: (Bool, String)] {
        var result: [String: (Bool, String)] = [:]
        for row in try await relay.pool.query("""
            SELECT token, seen > now() - interval '10 minutes' AS online,
                   to_char(seen AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS last_seen
            FROM (SELECT token, greatest(last_seen_at, (SELECT max(s.at) FROM delivery_spans s WHERE s.app_id = d.app_id AND d.id = ANY (s.device_ids))) AS seen
                  FROM devices d WHERE app_id = $1) t
            """, [app.id]) {
            result[try row.string("token")] = (try row.bool("online"), try row.string("last_seen"))
        }
        return result
    }

    /// Every device's status equals the plain scan's answer; returns the status.
    @discardableResult
    private func expectTruth(_ relay: PipelineHarness, _ app: PipelineHarness.App,
                             sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: (Bool, String)] {
        let (got, want) = (try await status(relay, app), try await truth(relay, app))
        #expect(got.count == want.count, sourceLocation: sourceLocation)
        for (token, expected) in want {
            let actual = got[token]
            #expect(actual?.0 == expected.0 && actual?.1 == expected.1,
                    "\(token): \(String(describing: actual)) vs \(expected)", sourceLocation: sourceLocation)
        }
        return got
    }

    private func deviceIDs(_ relay: PipelineHarness, _ app: PipelineHarness.App, prefix: String) async throws -> [Int64] {
        try await relay.pool.query("SELECT id FROM devices WHERE app_id = $1 AND token LIKE $2 || '%' ORDER BY id", [app.id, prefix])
            .map { Int64(try $0.int("id")) }
    }

    private func spans(_ relay: PipelineHarness, message: Int64) async throws -> [ClosedRange<Int64>] {
        try await relay.pool.query("SELECT lo, hi FROM delivery_spans WHERE message_id = $1 ORDER BY lo", [message])
            .map { Int64(try $0.int("lo"))...Int64(try $0.int("hi")) }
    }

    @Test func aBroadcastMakesItsSentDevicesOnlineAndNoOtherDeviceOfTheirRange() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp("spans")
            let other = try await relay.createApp("other")
            // In id order: sent, refused by APNs, sandbox (not in the audience), another
            // app's device, sent.
            try await relay.insertDevices(app, count: 3, prefix: "a0")
            try await relay.insertDevices(app, count: 2, prefix: "badd")
            try await relay.insertDevices(app, count: 1, prefix: "5b", environment: "sandbox")
            try await relay.insertDevices(other, count: 1, prefix: "b0")
            try await relay.insertDevices(app, count: 3, prefix: "a1")
            try await relay.pool.query("UPDATE devices SET last_seen_at = $1::timestamptz", [Self.registered + "+00"])

            let first = try await relay.accepted(app, Self.broadcast)
            try await relay.waitUntilFinished(first)
            let covered = try await spans(relay, message: first)
            let between = try await deviceIDs(relay, app, prefix: "badd") + deviceIDs(relay, app, prefix: "5b") + deviceIDs(relay, other, prefix: "b0")
            #expect(between.allSatisfy { id in covered.contains { $0.contains(id) } }, "the devices not sent to lie inside a span: \(covered)")

            let after = try await expectTruth(relay, app)
            #expect(after.filter { $0.value.0 }.count == 6, "the six sent devices are online")
            #expect(after.filter { $0.key.hasPrefix("badd") || $0.key.hasPrefix("5b") }.allSatisfy { $0.value == (false, Self.registered) })
            #expect(try await expectTruth(relay, other).values.allSatisfy { $0 == (false, Self.registered) },
                    "another app's device inside the span is not delivered to")

            // A later broadcast is the last delivery, whatever the spans of the first say.
            try await relay.pool.query("UPDATE delivery_spans SET at = at - interval '1 day' WHERE message_id = $1", [first])
            #expect(try await expectTruth(relay, app).filter { $0.value.0 }.isEmpty, "a day-old delivery is not online")
            let second = try await relay.accepted(app, Self.broadcast)
            try await relay.waitUntilFinished(second)
            #expect(try await expectTruth(relay, app).filter { $0.value.0 }.count == 6)
        }
    }

    /// A message accepted `daysAgo` days ago with one leased chunk of the devices.
    private func chunk(_ relay: PipelineHarness, _ app: PipelineHarness.App, daysAgo: Int, offset: Int, devices: [Int64],
                       leases: Int = 1) async throws -> LeasedChunk {
        let row = try await relay.pool.query("""
            WITH message AS (
                INSERT INTO messages (id, app_id, body, environment, lane, state, accepted_at, expires_at, chunks_pending)
                VALUES (pushrelay_message_id_at(now() - make_interval(days => $2)) + $3, $1, '{}', 'production', 'targeted', 'sending', 0,
                        now() + interval '1 hour', 1)
                RETURNING id)
            INSERT INTO push_chunks (message_id, app_id, lane, device_ids, state, lease_owner, leases)
            SELECT id, $1, 'targeted', $4::bigint[], 'leased', 'me', $5 FROM message RETURNING id, message_id
            """, [app.id, daysAgo, offset, SQLArray.bigint(devices), leases]).first!
        return LeasedChunk(id: Int64(try row.int("id")), messageID: Int64(try row.int("message_id")), appID: app.id, lane: .targeted,
                           leases: leases)
    }

    private func write(_ relay: PipelineHarness, _ chunk: LeasedChunk, sent: [Int64], failed: [Int64] = []) async throws {
        let outcomes = sent.map { ChunkRun.Outcome(deviceID: $0, outcome: .sent, reason: nil, attempts: 1) }
            + failed.map { ChunkRun.Outcome(deviceID: $0, outcome: .failed, reason: "InternalServerError", attempts: 3) }
        _ = try await OutcomeWriter(pool: relay.pool, owner: "me")
            .write(chunk, outcomes: outcomes.shuffled(), retries: 0, sentAt: Date(), chunkComplete: true)
    }

    @Test func scatteredTargetedWritesMakeNarrowSpansAndExactStatus() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp("sparse")
            try await relay.insertDevices(app, count: 3000, prefix: "c0")
            try await relay.pool.query("UPDATE devices SET last_seen_at = $1::timestamptz", [Self.registered + "+00"])
            let ids = try await deviceIDs(relay, app, prefix: "c0")
            let targets = [ids[0], ids[1], ids[2], ids[1500], ids[2999]]
            let refused = [ids[1499]]
            let message = try await chunk(relay, app, daysAgo: 0, offset: 1, devices: targets + refused)
            try await write(relay, message, sent: targets, failed: refused)
            #expect(try await spans(relay, message: message.messageID) == [ids[0]...ids[2], ids[1500]...ids[1500], ids[2999]...ids[2999]],
                    "one span per group of neighbours; the refused device makes none")
            let status = try await expectTruth(relay, app)
            #expect(status.filter { $0.value.0 }.count == 5)

            // A re-leased chunk writing again: rows that exist make no span, a new one does,
            // only its own although its id joins two old ones into one run.
            let again = LeasedChunk(id: message.id, messageID: message.messageID, appID: app.id, lane: .targeted, leases: 2)
            try await relay.pool.query("UPDATE push_chunks SET state = 'leased', lease_owner = 'me' WHERE id = $1", [message.id])
            try await write(relay, again, sent: targets + [ids[2000]])
            let rewritten = try await spans(relay, message: message.messageID)
            #expect(rewritten == [ids[0]...ids[2], ids[1500]...ids[1500], ids[2000]...ids[2000], ids[2999]...ids[2999]])
            #expect(try await expectTruth(relay, app).filter { $0.value.0 }.count == 6)
        }
    }

    /// A span stands only for the devices it holds: a later write of an old message whose
    /// span covers the device's id, which that message reached long ago, does not hide the
    /// device's newer delivery by another message.
    @Test func aLaterSpanOfAnOlderDeliveryDoesNotHideANewerOne() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp("order")
            try await relay.insertDevices(app, count: 3, prefix: "f0")
            try await relay.pool.query("UPDATE devices SET last_seen_at = $1::timestamptz", [Self.registered + "+00"])
            let ids = try await deviceIDs(relay, app, prefix: "f0")
            func age(_ message: Int64, hours: Int) async throws {
                for table in ["deliveries", "delivery_spans"] {
                    try await relay.pool.query("UPDATE \(table) SET at = at - make_interval(hours => $2) WHERE message_id = $1", [message, hours])
                }
            }
            let old = try await chunk(relay, app, daysAgo: 0, offset: 1, devices: ids)
            try await write(relay, old, sent: [ids[1]], failed: [ids[0], ids[2]])
            try await age(old.messageID, hours: 3)
            let newer = try await chunk(relay, app, daysAgo: 0, offset: 2, devices: [ids[1]])
            try await write(relay, newer, sent: [ids[1]])
            try await age(newer.messageID, hours: 2)
            // The old message's chunk again: its two other devices sent now, one span over all three.
            try await relay.pool.query("DELETE FROM deliveries WHERE message_id = $1 AND outcome = 'failed'", [old.messageID])
            try await relay.pool.query("UPDATE push_chunks SET state = 'leased', lease_owner = 'me' WHERE id = $1", [old.id])
            try await write(relay, LeasedChunk(id: old.id, messageID: old.messageID, appID: app.id, lane: .targeted, leases: 2),
                            sent: [ids[0], ids[2]])
            #expect(try await spans(relay, message: old.messageID).contains(ids[0]...ids[2]))
            let status = try await expectTruth(relay, app)
            let expected = try await relay.pool.query("""
                SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS t FROM delivery_spans WHERE message_id = $1
                """, [newer.messageID]).first!.string("t")
            #expect(status[PipelineHarness.token(prefix: "f0", index: 1)]! == (false, expected), "the newer message's delivery, 2 hours ago")
        }
    }

    @Test func retentionDropsTheSpansWithTheirDeliveries() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp("retention")
            try await relay.insertDevices(app, count: 4, prefix: "d0")
            try await relay.pool.query("UPDATE devices SET last_seen_at = $1::timestamptz", [Self.registered + "+00"])
            let ids = try await deviceIDs(relay, app, prefix: "d0")
            // Sent now, for messages accepted 40 days ago (the history partition) and today.
            try await write(relay, try await chunk(relay, app, daysAgo: 40, offset: 1, devices: [ids[0], ids[1]]), sent: [ids[0], ids[1]])
            try await write(relay, try await chunk(relay, app, daysAgo: 0, offset: 2, devices: [ids[1], ids[2]]), sent: [ids[1], ids[2]])
            #expect(try await expectTruth(relay, app).filter { $0.value.0 }.count == 3)

            let pass = try await DeliveryPartitions(pool: relay.pool, retentionDays: 1, logger: TestDatabase.quietLogger).maintain()
            #expect(pass.dropped == ["deliveries_history", "delivery_spans_history", "receipts_history"])
            let status = try await expectTruth(relay, app)
            #expect(status.filter { $0.value.0 }.map(\.key).sorted() == [1, 2].map { PipelineHarness.token(prefix: "d0", index: $0) })
            #expect(status[PipelineHarness.token(prefix: "d0", index: 0)]! == (false, Self.registered),
                    "the dropped day's delivery is forgotten, as the deliveries are")
        }
    }

    /// Spans are looked up within the device's app: another app's span holding the id (made
    /// up: ids are not shared between apps) is not this device's delivery.
    @Test func anotherAppsSpanOverTheIdIsNotLookedAt() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp("mine")
            let other = try await relay.createApp("theirs")
            try await relay.insertDevices(app, count: 1, prefix: "e0")
            try await relay.pool.query("UPDATE devices SET last_seen_at = $1::timestamptz", [Self.registered + "+00"])
            let id = try await deviceIDs(relay, app, prefix: "e0")[0]
            let theirs = try await chunk(relay, other, daysAgo: 0, offset: 1, devices: [id])
            try await relay.pool.query("""
                INSERT INTO delivery_spans (message_id, app_id, lo, hi, device_ids) VALUES ($1, $3, $2 - 5, $2 + 5, ARRAY[$2 - 5, $2, $2 + 5])
                """, [theirs.messageID, id, other.id])
            let status = try await status(relay, app)
            #expect(status.values.first! == (false, Self.registered))
        }
    }
}
