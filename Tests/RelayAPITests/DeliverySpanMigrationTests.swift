import Foundation
import PostgresStore
@testable import RelayAPI
import Testing
import TestSupport

/// Migration 0023 on a database with deliveries: the spans it backfills give every device
/// the status the deliveries give.
@Suite struct DeliverySpanMigrationTests {
    @Test func theMigrationBackfillsSpansThatAnswerAsTheDeliveriesDo() async throws {
        let pool = PostgresPool(configuration: PostgresPoolConfiguration(connectionString: try await TestDatabase.fresh(), size: 2),
                                logger: TestDatabase.quietLogger)
        do {
            try await check(pool)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
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
        let applied = try await Migrator.migrate(pool, logger: logger)
        #expect(applied.first == 23, "0023 and what follows it")
        let spans = try await pool.query("SELECT count(*) AS n, count(*) FILTER (WHERE lo = hi) AS single FROM delivery_spans").first!
        #expect(try spans.int("n") > 0 && spans.int("single") > 0, "runs split where ids lie far apart")
        #expect(try await pool.query("SELECT to_regclass('deliveries_device_sent') IS NULL AS gone").first!.bool("gone"))

        for app in try await pool.query("SELECT id FROM apps").map({ Int64(try $0.int("id")) }) {
            let devices = try await pool.query("SELECT id, replace(registration_id::text, '-', '') AS rid FROM devices WHERE app_id = $1", [app])
            let ids = try devices.map { Int64(try $0.int("id")) }
            let idOf = Dictionary(uniqueKeysWithValues: try devices.map { (try $0.string("rid"), Int64(try $0.int("id"))) })
            var got: [Int64: String] = [:]
            for start in stride(from: 0, to: ids.count, by: 1000) {
                let batch = Array(ids[start..<min(start + 1000, ids.count)])
                for row in try await pool.query(DeviceRepository.statusSQL, [app, DeviceRepository.idArray(batch)]) {
                    got[idOf[try row.string("rid")]!] = try row.string("last_seen")
                }
            }
            let want = try await pool.query("""
                SELECT id, to_char(greatest(last_seen_at, (SELECT max(x.at) FROM deliveries x WHERE x.device_id = d.id AND x.outcome = 'sent'))
                                   AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS last_seen
                FROM devices d WHERE app_id = $1
                """, [app])
            #expect(want.count == 3000 && got.count == 3000)
            var wrong = 0
            for row in want where got[Int64(try row.int("id"))] != (try row.string("last_seen")) { wrong += 1 }
            #expect(wrong == 0, "app \(app): \(wrong) devices differ")
        }
    }
}
