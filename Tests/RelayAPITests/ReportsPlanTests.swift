import Foundation
import PostgresStore
@testable import RelayStore
import Testing
@testable import RelayAPI

/// Reports stay index lookups however many deliveries a message has: with a 200,000-device
/// message, 20,000 other messages sent to a device each, receipt counters for all of them and
/// fresh statistics, no report statement scans a table, and the answers still come from the
/// counters.
@Suite struct ReportsPlanTests {
    static let deviceCount = 200_000

    @Test func reportStatementsUseIndexesOnALargeMessage() async throws {
        try await RelayHarness.with { relay in
            let app = try await ReportApp.make(relay, name: "big")
            let pool = relay.pool
            try await pool.query("""
                INSERT INTO devices (app_id, token, environment)
                SELECT $1, md5(i::text) || md5((-i)::text), 'production' FROM generate_series(1, $2) AS i
                """, [app.appID, Self.deviceCount])
            try await pool.query("""
                INSERT INTO messages (id, app_id, body, environment, lane, state, accepted_at, expires_at, target_count, sent_count)
                SELECT i, $1, '{}', 'production', 'targeted', 'done', 1796000000, now(), 1, 1 FROM generate_series(1, 20000) AS i
                """, [app.appID])
            try await pool.query("""
                INSERT INTO delivery_spans (message_id, app_id, lo, hi, device_ids)
                SELECT i, $1, d.id, d.id, ARRAY[d.id] FROM generate_series(1, 20000) AS i, (SELECT min(id) AS id FROM devices WHERE app_id = $1) d
                """, [app.appID])
            let big: Int64 = 9_000_000
            // Every tenth device failed; the counters say so, as the pipeline would keep them.
            try await app.message(big, state: "sending", target: Self.deviceCount + 1000, sent: Self.deviceCount * 9 / 10,
                                  failed: Self.deviceCount / 10)
            // Recorded as the pipeline records them: the failed as rows, the sent in spans of
            // 2,000 devices.
            try await pool.query("""
                INSERT INTO deliveries (message_id, device_id, outcome, reason)
                SELECT $2, id, 'failed', 'InternalServerError' FROM devices WHERE app_id = $1 AND id % 10 = 0
                """, [app.appID, big])
            try await pool.query("""
                INSERT INTO delivery_spans (message_id, app_id, lo, hi, device_ids)
                SELECT $2, $1, min(id), max(id), array_agg(id ORDER BY id)
                FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM devices WHERE app_id = $1 AND id % 10 <> 0) sent
                GROUP BY (n - 1) / 2000
                """, [app.appID, big])
            try await app.failure(big, reason: "InternalServerError", count: Self.deviceCount / 10)
            try await pool.query("""
                INSERT INTO message_failures (message_id, reason, count)
                SELECT i, r, 1 FROM generate_series(1, 20000) AS i, unnest(ARRAY['BadDeviceToken', 'Unregistered', 'Expired']) AS r
                """)
            // Receipts reported for each message, the big one's from most of its devices.
            try await pool.query("""
                INSERT INTO message_receipt_counts (message_id, received, opened)
                SELECT i, 1, 0 FROM generate_series(1, 20000) AS i UNION ALL SELECT $1, 150000, 9000
                """, [big])
            try await pool.query("ANALYZE")

            let sample = try await pool.query("""
                SELECT \(RegistrationID.sql("registration_id")) AS rid FROM devices WHERE app_id = $1 ORDER BY id DESC LIMIT 1000
                """, [app.appID]).map { try $0.string("rid") }
            #expect(sample.count == 1000)
            let ids = "{" + ((1...99).map(String.init) + [String(big)]).joined(separator: ",") + "}"
            let plans: [(name: String, sql: String, params: [String])] = [
                ("counters", ReportStatements.counters.text, [String(app.appID), ids]),
                ("failures", ReportStatements.failures.text, [ids]),
                ("message state", ReportStatements.messageState.text, [String(big), String(app.appID)]),
                ("outcomes", ReportStatements.outcomes.text, [String(app.appID), SQLArray.text(sample), String(big)]),
            ]
            for plan in plans {
                let text = try await pool.query("EXPLAIN " + plan.sql, plan.params).map { $0["QUERY PLAN"] ?? "" }.joined(separator: "\n")
                #expect(!text.contains("Seq Scan"), "\(plan.name) scans a table:\n\(text)")
                #expect(text.contains("Index"), "\(plan.name) uses no index:\n\(text)")
            }

            // The answers, from the counters and by primary key.
            let detail = try #require(try await app.list("/v3/messages/detail?msg_ids=\(big)").first)
            #expect(detail["pending"] as? Int == 1000)
            let notification = (detail["details"] as? [String: Any])?["notification"] as? [String: Any]
            #expect(notification?["received"] as? Int == 150_000 && notification?["click"] as? Int == 9000)
            #expect(detail["failed_by_reason"] as? [String: Int] == ["InternalServerError": Self.deviceCount / 10])
            let statuses = try await app.status(big, sample)
            #expect(statuses.count == 1000)
            #expect(statuses.values.filter { $0 == 0 }.count == 900 && statuses.values.filter { $0 == 1 }.count == 100)
        }
    }
}
