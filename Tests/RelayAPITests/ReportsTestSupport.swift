import Foundation
import PostgresStore
@testable import RelayAPI
@testable import RelayStore

/// One app of a report test, and its messages, devices and outcomes written straight into
/// the pipeline's tables, so reports are tested against the schema alone.
struct ReportApp {
    let client: DeviceClient
    let appID: Int64
    var relay: RelayHarness { client.relay }

    static func make(_ relay: RelayHarness, name: String) async throws -> ReportApp {
        let client = try await DeviceClient.make(relay, name: name)
        let rows = try await relay.pool.query("SELECT id FROM apps WHERE app_key = $1", [client.key])
        return ReportApp(client: client, appID: Int64(try rows[0].int("id")))
    }

    func request(_ method: String, _ path: String, json: Any? = nil) async throws -> RelayHarness.Reply {
        try await client.request(method, path, json: json)
    }

    /// A `messages` row with the given counters. `finishedAfter` sets `finished_at` that many
    /// seconds after `created_at`.
    @discardableResult
    func message(_ id: Int64, state: String = "sending", target: Int = 0, sent: Int = 0, failed: Int = 0,
                 invalidated: Int = 0, expired: Int = 0, retries: Int = 0, sentWindow: Bool = false,
                 finishedAfter: Double? = nil) async throws -> Int64 {
        try await relay.pool.query("""
            INSERT INTO messages (id, app_id, body, environment, lane, state, accepted_at, expires_at, created_at,
                                  target_count, sent_count, failed_count, invalidated_count, expired_count, retry_count,
                                  first_sent_at, last_sent_at, finished_at)
            VALUES ($1, $2, '{"platform":"ios","audience":"all","notification":{"alert":"hi"}}', 'production', 'broadcast', $3,
                    1796000000, now() + interval '1 day', '2026-11-30 09:00:00+00', $4, $5, $6, $7, $8, $9,
                    CASE WHEN $10 THEN timestamptz '2026-11-30 09:00:01+00' END,
                    CASE WHEN $10 THEN timestamptz '2026-11-30 09:00:04+00' END,
                    timestamptz '2026-11-30 09:00:00+00' + make_interval(secs => $11::float8))
            """, [id, appID, state, target, sent, failed, invalidated, expired, retries, sentWindow, finishedAfter])
        return id
    }

    func failure(_ messageID: Int64, reason: String, count: Int) async throws {
        try await relay.pool.query("INSERT INTO message_failures (message_id, reason, count) VALUES ($1, $2, $3)", [messageID, reason, count])
    }

    /// `count` devices of this app, as (device id, registration id).
    func devices(_ count: Int) async throws -> [(id: Int64, rid: String)] {
        let rows = try await relay.pool.query("""
            INSERT INTO devices (app_id, token, environment)
            SELECT $1, md5(random()::text) || md5(random()::text), 'production' FROM generate_series(1, $2)
            RETURNING id, \(RegistrationID.sql("registration_id")) AS rid
            """, [appID, count])
        return try rows.map { (Int64(try $0.int("id")), try $0.string("rid")) }.sorted { $0.id < $1.id }
    }

    /// Records the device's outcome for the message as the pipeline does: a span holding it
    /// when sent, a `deliveries` row otherwise.
    func delivery(_ messageID: Int64, device: Int64, outcome: String, reason: String? = nil) async throws {
        if outcome == "sent" {
            try await relay.pool.query("INSERT INTO delivery_spans (message_id, app_id, lo, hi, device_ids) VALUES ($1, $2, $3, $3, ARRAY[$3::bigint])",
                                       [messageID, appID, device])
        } else {
            try await relay.pool.query("INSERT INTO deliveries (message_id, device_id, outcome, reason) VALUES ($1, $2, $3, $4)",
                                       [messageID, device, outcome, reason])
        }
    }

    /// `POST /v3/status/message` as rid → status.
    func status(_ messageID: Any, _ rids: [String]) async throws -> [String: Int] {
        let reply = try await request("POST", "/v3/status/message", json: ["msg_id": messageID, "registration_ids": rids])
        guard reply.status == 200 else { throw HarnessError("status failed: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))") }
        var result: [String: Int] = [:]
        for (rid, value) in reply.json { result[rid] = (value as? [String: Any])?["status"] as? Int }
        return result
    }

    /// A report call's JSON array.
    func list(_ path: String) async throws -> [[String: Any]] {
        let reply = try await request("GET", path)
        guard reply.status == 200, let list = try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]] else {
            throw HarnessError("\(path) failed: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return list
    }
}
