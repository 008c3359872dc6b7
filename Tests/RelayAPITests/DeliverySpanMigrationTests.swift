import Foundation
import PostgresStore
@testable import RelayAPI
@testable import RelayStore
import Testing
import TestSupport

/// Migrations 0023 and 0025 on a database with a `deliveries` row per device: the spans they
/// make hold exactly the sent deliveries, and give every device the status the deliveries gave.
@Suite struct DeliverySpanMigrationTests {
    @Test func theMigrationBackfillsSpansThatAnswerAsTheDeliveriesDo() async throws {
        let pool = PostgresPool(configuration: PostgresPoolConfiguration(connectionString: try await TestDatabase.fresh(), size: 2),
                                logger: TestDatabase.quietLogger)
        try await withStopping(pool, stop: { await $0.close() }, check)
    }

    private func check(_ pool: PostgresPool) async throws {
        let logger = TestDatabase.quietLogger
        _ = try await Migrator.migrate(pool, migrations: EmbeddedMigrations.all.filter { $0.version < 23 }, logger: logger)
        // Two apps' devices interleaved; messages of today and of 40 days ago (the history
        // partition), each written in several statements (times), sent, failed, scattered.
        try await pool.query("""
            INSERT INTO apps (app_key, name, secret_hash) VALUES ('0123456789abcdef0123456a', 'a', 'h'), ('0123456789abcdef0123456b', 'b', 'h')
            """)
        try await pool.query("""
            INSERT INTO devices (app_id, token, environment, last_seen_at)
            SELECT (SELECT min(id) FROM apps) + i % 2, lpad(to_hex(i), 64, '0'), 'production', '2026-01-02 03:04:05+00'
            FROM generate_series(1, 6000) i
            """)
        try await pool.query("""
            INSERT INTO messages (id, app_id, body, environment, lane, state, accepted_at, expires_at)
            SELECT pushrelay_message_id_at(now() - make_interval(days => d)) + a.id * 10 + m, a.id, '{}', 'production', 'broadcast', 'done', 0, now()
            FROM apps a, (VALUES (0), (40)) days(d), generate_series(1, 3) m
            """)
        try await pool.query("""
            INSERT INTO deliveries (message_id, device_id, outcome, at)
            SELECT m.id, d.id, CASE WHEN (d.id + m.id) % 7 = 0 THEN 'failed' ELSE 'sent' END,
                   now() - make_interval(mins => (m.id % 100)::integer * 10 + (d.id / 700)::integer)
            FROM messages m JOIN devices d ON d.app_id = m.app_id
            WHERE CASE WHEN m.id % 3 = 0 THEN d.id % 1200 < 2 ELSE d.id % (m.id % 5 + 1) = 0 END
            """)
        // What the deliveries say before the migrations: each device's status, and who was sent what.
        var want: [Int64: [Int64: String]] = [:]
        for app in try await pool.query("SELECT id FROM apps").map({ Int64(try $0.int("id")) }) {
            for row in try await pool.query("""
                SELECT id, to_char(greatest(last_seen_at, (SELECT max(x.at) FROM deliveries x WHERE x.device_id = d.id AND x.outcome = 'sent'))
                                   AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS last_seen
                FROM devices d WHERE app_id = $1
                """, [app]) {
                want[app, default: [:]][Int64(try row.int("id"))] = try row.string("last_seen")
            }
        }
        try await pool.query("CREATE TABLE sent_before AS SELECT message_id, device_id FROM deliveries WHERE outcome = 'sent'")
        let failed = try await pool.query("SELECT count(*) AS n FROM deliveries WHERE outcome = 'failed'")[0].int("n")

        let applied = try await Migrator.migrate(pool, logger: logger)
        #expect(applied.first == 23, "0023 and what follows it")
        let spans = try await pool.query("SELECT count(*) AS n, count(*) FILTER (WHERE lo = hi) AS single FROM delivery_spans").first!
        #expect(try spans.int("n") > 0 && spans.int("single") > 0, "runs split where ids lie far apart")
        #expect(try await pool.query("SELECT to_regclass('deliveries_device_sent') IS NULL AS gone").first!.bool("gone"))
        let differ = try await pool.query("""
            WITH held AS (SELECT s.message_id, device_id FROM delivery_spans s, unnest(s.device_ids) AS device_id)
            SELECT (SELECT count(*) FROM held) AS held, (SELECT count(*) FROM sent_before) AS sent,
                   (SELECT count(*) FROM (SELECT * FROM held EXCEPT SELECT * FROM sent_before) extra) AS extra,
                   (SELECT count(*) FROM (SELECT * FROM sent_before EXCEPT SELECT * FROM held) missing) AS missing
            """)[0]
        #expect(try differ.int("held") == differ.int("sent") && differ.int("extra") == 0 && differ.int("missing") == 0,
                "the spans hold every sent delivery once: \(differ)")
        let left = try await pool.query("SELECT count(*) AS n, count(*) FILTER (WHERE outcome = 'failed') AS failed FROM deliveries")[0]
        #expect(try left.int("n") == failed && left.int("failed") == failed, "deliveries keeps the outcomes other than sent")

        for (app, want) in want {
            let devices = try await pool.query("SELECT id, replace(registration_id::text, '-', '') AS rid FROM devices WHERE app_id = $1", [app])
            let ids = try devices.map { Int64(try $0.int("id")) }
            let idOf = Dictionary(uniqueKeysWithValues: try devices.map { (try $0.string("rid"), Int64(try $0.int("id"))) })
            var got: [Int64: String] = [:]
            for start in stride(from: 0, to: ids.count, by: 1000) {
                let batch = Array(ids[start..<min(start + 1000, ids.count)])
                for row in try await pool.query(DeviceStatements.status.text, [app, SQLArray.bigint(batch)]) {
                    got[idOf[try row.string("rid")]!] = try row.string("last_seen")
                }
            }
            #expect(want.count == 3000 && got.count == 3000)
            let wrong = want.filter { got[$0.key] != $0.value }.count
            #expect(wrong == 0, "app \(app): \(wrong) devices differ")
        }
    }
}
