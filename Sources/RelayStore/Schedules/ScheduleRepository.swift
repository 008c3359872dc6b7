import Foundation
import PostgresStore
import PushCore
import PushPipeline
import RelayCore
import Scheduling

/// The `schedules` table as the API sees it: every statement scoped to one app, every
/// change announced on `ScheduleChannel` in its own transaction.
public struct ScheduleRepository: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }
    /// JPush's page size for `GET /v3/schedules`.
    public static let pageSize = 50

    /// Creates a schedule, or answers the existing one when its cid was used before.
    ///
    /// - Returns: the schedule's id and name.
    public func create(appID: Int64, _ request: ScheduleRequest, now: Date) async throws -> (id: String, name: String) {
        let timing = ScheduleTiming(trigger: request.trigger, enabled: request.enabled, storedWatermark: nil, now: now)
        return try await pool.withConnection { connection in
            try connection.transaction { connection in
                let inserted = try connection.query("""
                    INSERT INTO schedules (app_id, cid, name, enabled, trigger, push, watermark, next_fire_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                    ON CONFLICT (app_id, cid) DO NOTHING
                    RETURNING id::text AS id, name
                    """, [appID, request.cid, request.name, request.enabled, request.trigger.json.jsonText, request.push.jsonText,
                          timing.watermark, timing.nextFireAt])
                if let row = inserted.first {
                    try connection.query(ScheduleChannel.notify)
                    return (try row.string("id"), try row.string("name"))
                }
                guard let row = try connection.query(
                    "SELECT id::text AS id, name FROM schedules WHERE app_id = $1 AND cid = $2", [appID, request.cid]).first
                else { throw PostgresError.protocolViolation("schedule insert conflicted without a cid") }
                return (try row.string("id"), try row.string("name"))
            }
        }
    }

    /// One page (1-based) of the app's schedules, oldest first, and the app's total.
    public func list(appID: Int64, page: Int) async throws -> (total: Int, schedules: [StoredSchedule]) {
        try await pool.withConnection { connection in
            let total = try connection.query("SELECT count(*) AS n FROM schedules WHERE app_id = $1", [appID]).first?.int("n") ?? 0
            let rows = try connection.query("""
                SELECT \(Self.columns) FROM schedules WHERE app_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3
                """, [appID, Self.pageSize, (page - 1) * Self.pageSize])
            return (total, try rows.map(Self.schedule))
        }
    }

    public func get(appID: Int64, id: String) async throws -> StoredSchedule? {
        try await pool.query("SELECT \(Self.columns) FROM schedules WHERE app_id = $1 AND id = $2::uuid", [appID, id])
            .first.map(Self.schedule)
    }

    /// Replaces the sections `update` holds; the push, when replaced, is checked by `validate`.
    ///
    /// - Returns: the schedule after the change; nil when the app has no such schedule.
    public func update(appID: Int64, id: String, _ update: ScheduleUpdate, now: Date) async throws -> StoredSchedule? {
        try await pool.withConnection { connection in
            try connection.transaction { connection in
                guard let row = try connection.query(
                    "SELECT \(Self.columns) FROM schedules WHERE app_id = $1 AND id = $2::uuid FOR UPDATE", [appID, id]).first
                else { return nil }
                let current = try Self.schedule(row)
                let changed = update.applied(to: current.schedule)
                let timing = ScheduleTiming(trigger: changed.trigger, enabled: changed.enabled, storedWatermark: current.watermark, now: now)
                try connection.query("""
                    UPDATE schedules SET name = $2, enabled = $3, trigger = $4, push = $5, watermark = $6, next_fire_at = $7,
                                         updated_at = now()
                    WHERE id = $1::uuid
                    """, [id, changed.name, changed.enabled, changed.trigger.json.jsonText, changed.push.jsonText,
                          timing.watermark, timing.nextFireAt])
                try connection.query(ScheduleChannel.notify)
                return StoredSchedule(id: current.id, schedule: changed, watermark: timing.watermark)
            }
        }
    }

    /// Deletes a schedule (its fire records go with it; pushes already accepted stay).
    ///
    /// - Returns: false when the app has no such schedule.
    public func delete(appID: Int64, id: String) async throws -> Bool {
        try await pool.withConnection { connection in
            try connection.transaction { connection in
                let deleted = try connection.query("DELETE FROM schedules WHERE app_id = $1 AND id = $2::uuid", [appID, id])
                if deleted.affectedRows > 0 { try connection.query(ScheduleChannel.notify) }
                return deleted.affectedRows > 0
            }
        }
    }

    /// The msg_ids of the pushes a schedule sent, oldest first; nil when the app has no such schedule.
    public func messageIDs(appID: Int64, id: String) async throws -> [String]? {
        try await pool.withConnection { connection in
            guard try !connection.query("SELECT 1 FROM schedules WHERE app_id = $1 AND id = $2::uuid", [appID, id]).isEmpty else {
                return nil
            }
            return try connection.query("""
                SELECT message_id::text AS m FROM schedule_fires WHERE schedule_id = $1::uuid AND outcome = 'sent' ORDER BY occurrence
                """, [id]).map { try $0.string("m") }
        }
    }

    private static let columns = "id::text AS id, cid, name, enabled, trigger, push, watermark"

    private static func schedule(_ row: PostgresRow) throws -> StoredSchedule {
        let utc = TimeZone(identifier: "UTC")!
        let trigger = try ScheduleTrigger(json: JSONValue.parse(Array(try row.string("trigger").utf8)), defaultTimeZone: utc)
        let push = try JSONValue.parse(Array(try row.string("push").utf8))
        let schedule = ScheduleRequest(cid: row["cid"], name: try row.string("name"), enabled: try row.bool("enabled"),
                                       trigger: trigger, push: push)
        return StoredSchedule(id: try row.string("id"), schedule: schedule,
                              watermark: row["watermark"] == nil ? nil : try row.date("watermark"))
    }
}
