import Foundation
import PostgresStore
import PushPipeline
import Testing
import TestSupport

/// The deliveries' day partitions (migration 0020), with delivery spans' (0023) and receipts'
/// (0044) beside them, and `DeliveryPartitions`: made ahead, dropped whole past the
/// retention, messages and counters kept.
@Suite(.serialized) struct DeliveryPartitionTests {
    /// Partition names of `deliveries`.
    private func partitions(_ pool: PostgresPool, of parent: String = "deliveries") async throws -> Set<String> {
        Set(try await pool.query("""
            SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass
            """, [parent]).map { try $0.string("relname") })
    }

    /// `deliveries_YYYYMMDD` (or another table's) of the UTC day `offset` days from today.
    private func dayName(_ offset: Int, _ parent: String = "deliveries") -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd"
        return parent + "_" + formatter.string(from: Date().addingTimeInterval(Double(offset) * 86_400))
    }

    /// A message of the app accepted `daysAgo` days ago (its id says so), sent to one device.
    private func message(_ relay: PipelineHarness, _ app: PipelineHarness.App, daysAgo: Int, device: Int64) async throws -> Int64 {
        let id = try await relay.pool.query("""
            INSERT INTO messages (id, app_id, body, environment, lane, state, accepted_at, expires_at, sent_count)
            SELECT pushrelay_message_id_at(now() - make_interval(days => $2)) + $3, $1, '{}', 'production', 'broadcast', 'done',
                   extract(epoch FROM now())::bigint, now(), 1
            RETURNING id
            """, [app.id, daysAgo, device]).first!.int("id")
        try await sent(relay, app, message: Int64(id), device: device)
        return Int64(id)
    }

    /// Records the message as sent to the device, as an outcome write does: a span holding it.
    private func sent(_ relay: PipelineHarness, _ app: PipelineHarness.App, message: Int64, device: Int64) async throws {
        try await relay.pool.query("INSERT INTO delivery_spans (message_id, app_id, lo, hi, device_ids) VALUES ($1, $2, $3, $3, ARRAY[$3::bigint])",
                                   [message, app.id, device])
    }

    @Test func partitionsAreCreatedAheadAndADeliveryLandsInItsDay() async throws {
        try await PipelineHarness.with { relay in
            let made = try await partitions(relay.pool)
            #expect(made.isSuperset(of: (-1...7).map { dayName($0) }), "the migration made yesterday to a week ahead: \(made.sorted())")
            #expect(try await partitions(relay.pool, of: "delivery_spans") == Set(made.map { "delivery_spans_" + $0.dropFirst("deliveries_".count) }),
                    "delivery_spans has a partition beside each of deliveries (migration 0023)")
            #expect(try await partitions(relay.pool, of: "receipts") == Set(made.map { "receipts_" + $0.dropFirst("deliveries_".count) }),
                    "receipts has a partition beside each of deliveries (migration 0044)")
            for offset in 3...7 {
                try await relay.pool.query("DROP TABLE \(dayName(offset)), \(dayName(offset, "delivery_spans")), \(dayName(offset, "receipts"))")
            }

            let maintainer = DeliveryPartitions(pool: relay.pool, retentionDays: 30, daysAhead: 10, logger: TestDatabase.quietLogger)
            let pass = try await maintainer.maintain()
            #expect(pass.created == 24, "days 3 to 10 ahead, of the three tables")
            #expect(pass.dropped.isEmpty)
            #expect(try await partitions(relay.pool).isSuperset(of: (0...10).map { dayName($0) }))
            #expect(try await partitions(relay.pool, of: "delivery_spans").isSuperset(of: (0...10).map { dayName($0, "delivery_spans") }))
            #expect(try await partitions(relay.pool, of: "receipts").isSuperset(of: (0...10).map { dayName($0, "receipts") }))
            let again = try await maintainer.maintain()
            #expect(again.created == 0 && again.dropped.isEmpty, "a second pass finds nothing to do")

            // A push accepted now is recorded in today's partition, through the pipeline.
            let app = try await relay.createApp()
            try await relay.insertDevices(app, count: 3, prefix: "a0")
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "today"]])
            try await relay.waitUntilFinished(msgID)
            let homes = try await relay.pool.query("SELECT DISTINCT tableoid::regclass::text AS home FROM delivery_spans WHERE message_id = $1", [msgID])
            #expect(try homes.map { try $0.string("home") } == [dayName(0, "delivery_spans")])
        }
    }

    @Test func retentionDropsOldPartitionsWholeAndKeepsMessagesAndCounters() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let old = try await message(relay, app, daysAgo: 40, device: 1)
            let yesterday = try await message(relay, app, daysAgo: 1, device: 2)
            let today = try await message(relay, app, daysAgo: 0, device: 3)

            // One day of retention: everything before yesterday (the history partition) goes.
            let pass = try await DeliveryPartitions(pool: relay.pool, retentionDays: 1, logger: TestDatabase.quietLogger).maintain()
            #expect(pass.dropped == ["deliveries_history", "delivery_spans_history", "receipts_history"],
                    "a day's spans and receipts go with its deliveries")
            let left = try await relay.pool.query("SELECT message_id FROM delivery_spans ORDER BY message_id").map { Int64(try $0.int("message_id")) }
            #expect(left == [yesterday, today])
            #expect(try await relay.message(old).int("sent_count") == 1, "the message and its counters outlive its deliveries")
            #expect(try await partitions(relay.pool).contains(dayName(-1)))

            // New deliveries of a still-kept day go on being written.
            try await sent(relay, app, message: today, device: 4)
        }
    }
}
