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
                let inserted = try connection.preparedQuery(ScheduleStatements.create, [appID, request.cid, request.name, request.enabled, request.trigger.json.jsonText, request.push.jsonText,
                          timing.watermark, timing.nextFireAt])
                if let row = inserted.first {
                    try connection.query(ScheduleChannel.notify)
                    return (try row.string("id"), try row.string("name"))
                }
                guard let row = try connection.preparedQuery(ScheduleStatements.findByCID, [appID, request.cid]).first
                else { throw PostgresError.protocolViolation("schedule insert conflicted without a cid") }
                return (try row.string("id"), try row.string("name"))
            }
        }
    }

    /// One page (1-based) of the app's schedules, oldest first, and the app's total.
    public func list(appID: Int64, page: Int) async throws -> (total: Int, schedules: [StoredSchedule]) {
        try await pool.withConnection { connection in
            let total = try connection.preparedQuery(ScheduleStatements.count, [appID]).first?.int("n") ?? 0
            let rows = try connection.preparedQuery(ScheduleStatements.page, [appID, Self.pageSize, (page - 1) * Self.pageSize])
            return (total, try rows.map(Self.schedule))
        }
    }

    public func get(appID: Int64, id: String) async throws -> StoredSchedule? {
        try await pool.preparedQuery(ScheduleStatements.find, [appID, id])
            .first.map(Self.schedule)
    }

    /// Replaces the sections `update` holds; the push, when replaced, is checked by `validate`.
    ///
    /// - Returns: the schedule after the change; nil when the app has no such schedule.
    public func update(appID: Int64, id: String, _ update: ScheduleUpdate, now: Date) async throws -> StoredSchedule? {
        try await pool.withConnection { connection in
            try connection.transaction { connection in
                guard let row = try connection.preparedQuery(ScheduleStatements.lock, [appID, id]).first
                else { return nil }
                let current = try Self.schedule(row)
                let changed = update.applied(to: current.schedule)
                let timing = ScheduleTiming(trigger: changed.trigger, enabled: changed.enabled, storedWatermark: current.watermark, now: now)
                try connection.preparedQuery(ScheduleStatements.update, [id, changed.name, changed.enabled, changed.trigger.json.jsonText, changed.push.jsonText,
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
                let deleted = try connection.preparedQuery(ScheduleStatements.delete, [appID, id])
                if deleted.affectedRows > 0 { try connection.query(ScheduleChannel.notify) }
                return deleted.affectedRows > 0
            }
        }
    }

    /// The msg_ids of the pushes a schedule sent, oldest first; nil when the app has no such schedule.
    public func messageIDs(appID: Int64, id: String) async throws -> [String]? {
        try await pool.withConnection { connection in
            guard try !connection.preparedQuery(ScheduleStatements.exists, [appID, id]).isEmpty else {
                return nil
            }
            return try connection.preparedQuery(ScheduleStatements.sentMessages, [id]).map { try $0.string("m") }
        }
    }

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
