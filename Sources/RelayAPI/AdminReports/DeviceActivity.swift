import Foundation
import PostgresStore
import PushCore

/// New and active devices of one app per bucket, for `GET /v3/users`.
///
/// `new`: registered for the first time in the bucket (`devices.created_at`, indexed per
/// app). `active`: registered or delivered to in the bucket, each device once per bucket.
/// Registrations come from `devices.last_seen_at` (only the latest one is kept), deliveries
/// from the spans of the app's messages that can have been sent in the window (accepted at
/// most the longest time-to-live before it). It reads rows of the window, not a rollup.
enum DeviceActivity {
    struct Counts: Sendable, Equatable {
        var new = 0
        var active = 0
    }

    /// One `Counts` per bucket between consecutive `boundaries`.
    static func counts(appID: Int64, boundaries: [Date], pool: PostgresPool) async throws -> [Counts] {
        guard let first = boundaries.first, let last = boundaries.last, boundaries.count > 1 else { return [] }
        let edges = "{" + boundaries.map { ReportTime.format($0) }.joined(separator: ",") + "}"
        let rows = try await pool.query("""
            WITH edges AS (SELECT $4::timestamptz[] AS e)
            SELECT 'new' AS kind, width_bucket(created_at, (SELECT e FROM edges)) AS bucket, count(*) AS n
            FROM devices WHERE app_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY 2
            UNION ALL
            SELECT 'active', width_bucket(seen.at, (SELECT e FROM edges)), count(DISTINCT seen.device)
            FROM (SELECT id AS device, last_seen_at AS at FROM devices
                  WHERE app_id = $1 AND last_seen_at >= $2 AND last_seen_at < $3
                  UNION ALL
                  SELECT unnest(s.device_ids), s.at FROM messages m
                  JOIN delivery_spans s ON int8range(s.message_id, s.message_id, '[]') @> m.id
                  WHERE m.app_id = $1 AND m.id >= pushrelay_message_id_at($2::timestamptz - make_interval(secs => $5))
                    AND m.id < pushrelay_message_id_at($3) AND s.at >= $2 AND s.at < $3) seen
            GROUP BY 2
            """, [appID, first, last, edges, Double(PushLimits.timeToLive)])
        var counts = Array(repeating: Counts(), count: boundaries.count - 1)
        for row in rows {
            // width_bucket over the edges: 1 for the first bucket.
            let index = try row.int("bucket") - 1
            guard counts.indices.contains(index) else { continue }
            if try row.string("kind") == "new" { counts[index].new = try row.int("n") } else { counts[index].active = try row.int("n") }
        }
        return counts
    }
}
