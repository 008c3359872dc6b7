import Foundation
import PostgresStore
import PushPipeline
import Synchronization
import TestSupport

/// A clock a test moves forward instead of waiting.
final class MovableClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }
    func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}

extension PipelineHarness {
    /// A scheduler on this relay's database; `run()` it, or call `fireDue()` by hand.
    func makeScheduler(clock: MovableClock = MovableClock(), grace: TimeInterval = 600) -> Scheduler {
        var configuration = Scheduler.Configuration()
        configuration.grace = grace
        configuration.clock = { clock.now() }
        return Scheduler(pool: relay.pool, connectionString: relay.databaseURL, messages: MessageStore(pool: relay.pool),
                         configuration: configuration, logger: TestDatabase.quietLogger)
    }

    /// `POST /v3/schedules`, failing unless created; returns the schedule_id.
    func createSchedule(_ app: App, _ body: [String: Any]) async throws -> String {
        let reply = try await request("POST", "/v3/schedules", auth: app.auth, json: body)
        guard reply.status == 200, let id = reply.json["schedule_id"] as? String else {
            throw HarnessError("schedule refused: \(reply.status) \(reply.text)")
        }
        return id
    }

    /// The schedule's fire records as (outcome, msg_id or nil), oldest first.
    func fires(_ scheduleID: String) async throws -> [(outcome: String, messageID: Int64?)] {
        try await relay.pool.query("""
            SELECT outcome, message_id FROM schedule_fires WHERE schedule_id = $1::uuid ORDER BY occurrence
            """, [scheduleID]).map { (try $0.string("outcome"), $0["message_id"].flatMap(Int64.init)) }
    }

    /// Messages the app has, oldest first.
    func messageIDs(_ app: App) async throws -> [Int64] {
        try await relay.pool.query("SELECT id FROM messages WHERE app_id = $1 ORDER BY id", [app.id]).map { Int64(try $0.int("id")) }
    }
}

/// JPush's "YYYY-MM-DD HH:MM:SS" reading of `date` in `zone`.
func jpushTime(_ date: Date, zone: String = "UTC", format: String = "yyyy-MM-dd HH:mm:ss") -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: zone)!
    formatter.dateFormat = format
    return formatter.string(from: date)
}

/// A push body to one alias.
func aliasPush(_ alias: String, alert: String) -> [String: Any] {
    ["platform": "ios", "audience": ["alias": [alias]], "notification": ["alert": alert], "options": ["apns_production": true]]
}
