import Foundation
import PostgresStore
import PushCore
import RelayCore
import Scheduling
import Synchronization

/// The scheduler role: turns each due occurrence of a schedule into a normal push, once,
/// however many nodes run a scheduler against the same database.
///
/// It sleeps until the earliest `next_fire_at` (at most `maxSleep`, woken early by a NOTIFY
/// on `ScheduleChannel` when a schedule changes), then claims due schedules one at a time
/// with `FOR UPDATE SKIP LOCKED`. For each, `CatchUpDecision` sorts the due occurrences into
/// fire and missed; one transaction records them in `schedule_fires`, accepts the pushes
/// through `MessageStore` (each its own msg_id) and moves the watermark.
public final class Scheduler: Sendable {
    public struct Configuration: Sendable {
        /// How late an occurrence may still be sent (after downtime); older ones are missed.
        public var grace: TimeInterval = CatchUpDecision.defaultGrace
        /// Longest sleep between looks at the table, in case a NOTIFY was lost.
        public var maxSleep: Duration = .seconds(30)
        /// Sleep when a due schedule is held by another node's transaction.
        public var busyRetry: Duration = .milliseconds(200)
        /// The clock; tests move it instead of waiting.
        public var clock: @Sendable () -> Date = { Date() }

        public init() {}
    }

    private let pool: PostgresPool
    private let messages: MessageStore
    private let configuration: Configuration
    private let logger: Logger
    private let wake = WakeSignal()
    private let listener: NotificationListener
    private let stopping = Atomic<Bool>(false)
    /// Where the loop beats, so a hung scheduler fails `/healthz` (`Liveness`).
    private let liveness: Liveness?
    private static let utc = TimeZone(identifier: "UTC")!

    /// - Parameters:
    ///   - connectionString: for the LISTEN connection (the pool's database).
    ///   - messages: accepts the pushes, exactly as `POST /v3/push` does.
    ///   - liveness: where the loop beats.
    public init(pool: PostgresPool, connectionString: String, messages: MessageStore, configuration: Configuration = Configuration(),
                logger: Logger, liveness: Liveness? = nil) {
        self.pool = pool
        self.liveness = liveness
        self.messages = messages
        self.configuration = configuration
        let logger = logger.with(["component": "scheduler"])
        self.logger = logger
        let wake = wake
        listener = NotificationListener(connectionString: connectionString, channel: ScheduleChannel.name, logger: logger) { _ in
            wake.signal()
        }
    }

    /// Runs until `stop()`.
    public func run() async {
        listener.start()
        logger.info("scheduler started", ["grace_seconds": String(Int(configuration.grace))])
        let name = "scheduler"
        while !isStopping {
            liveness?.beat(name)
            let sleep: Duration
            do {
                sleep = try await fireDue()
            } catch {
                logger.warning("scheduler pass failed; retrying", ["error": "\(error)"])
                sleep = .seconds(1)
            }
            if isStopping { break }
            liveness?.beat(name, nextWithin: sleep)
            await wake.wait(timeout: sleep)
        }
        liveness?.end(name)
        await listener.stop()
        logger.info("scheduler stopped")
    }

    /// Asks `run()` to return after the schedule in hand.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Handles every due schedule this node can claim now; returns how long until the next
    /// one is due (what `run()` sleeps). Tests call it directly with a moved clock.
    public func fireDue() async throws -> Duration {
        while !isStopping, try await fireOne(now: configuration.clock()) {}
        let earliest = try await pool.preparedQuery(ScheduleFiringStatements.earliest)
        guard let seconds = earliest.first?["earliest"].flatMap(Double.init) else { return configuration.maxSleep }
        let wait = seconds - configuration.clock().timeIntervalSince1970
        // Still due: another node's transaction holds it; look again shortly.
        guard wait > 0 else { return configuration.busyRetry }
        return min(.milliseconds(Int64(saturating: wait * 1000, rounding: .up)), configuration.maxSleep)
    }

    /// Claims the most overdue schedule not locked by another node and handles it.
    ///
    /// - Returns: false when nothing claimable is due.
    private func fireOne(now: Date) async throws -> Bool {
        try await pool.withConnection { [self] connection in
            try connection.transaction { connection in
                guard let row = try connection.preparedQuery(ScheduleFiringStatements.claim, [now]).first
                else { return false }
                try fire(row, now: now, on: connection)
                return true
            }
        }
    }

    private func fire(_ row: PostgresRow, now: Date, on connection: PostgresConnection) throws {
        let id = try row.string("id")
        let appID = Int64(try row.int("app_id"))
        let log = logger.with(["schedule_id": id])
        let triggerText = try row.string("trigger")
        let trigger: ScheduleTrigger
        do {
            trigger = try ScheduleTrigger(json: JSONValue.parse(Array(triggerText.utf8)), defaultTimeZone: Self.utc)
        } catch {
            // A zone gone from the system's tzdata: stop, say so, do not spin on it.
            log.error("stored trigger unreadable; schedule stopped", ["error": error.message])
            try connection.preparedQuery(ScheduleFiringStatements.stop, [id])
            return
        }
        let since = row["watermark"] == nil ? nil : try row.date("watermark")
        let decision = CatchUpDecision(trigger: trigger, since: since, now: now, grace: configuration.grace)
        for occurrence in decision.missed {
            try connection.preparedQuery(ScheduleFiringStatements.missed, [id, occurrence])
            log.warning("scheduled push missed: later than the grace period", ["occurrence": "\(occurrence)"])
        }
        if !decision.fire.isEmpty {
            let body = Array(try row.string("push").utf8)
            for occurrence in decision.fire {
                try fire(occurrence, appID: appID, schedule: id, body: body, on: connection, log: log)
            }
        }
        try connection.preparedQuery(ScheduleFiringStatements.advance, [id, decision.watermark, decision.next])
    }

    /// Accepts one occurrence's push and records it; a push refused now (nobody matches the
    /// audience any more) is recorded as failed with the reason.
    private func fire(_ occurrence: Date, appID: Int64, schedule id: String, body: [UInt8], on connection: PostgresConnection,
                      log: Logger) throws {
        let at = "\(occurrence)"
        for attempt in 1...5 {
            try connection.query("SAVEPOINT occurrence")
            do {
                var request = try PushRequest.parseStored(body)
                // Every occurrence is a push of its own: a cid in the body would fold them into one.
                request.cid = nil
                let accepted = try messages.accept(appID: appID, request: request, body: body, on: connection)
                let recorded = try connection.preparedQuery(ScheduleFiringStatements.sent, [id, occurrence, accepted.msgID.rawValue])
                if recorded.affectedRows == 0 {
                    try connection.query("ROLLBACK TO SAVEPOINT occurrence")
                    log.warning("occurrence already recorded; not sent again", ["occurrence": at])
                } else {
                    try connection.query("RELEASE SAVEPOINT occurrence")
                    log.info("scheduled push accepted", ["occurrence": at, "msg_id": accepted.msgID.description])
                }
                return
            } catch let error as JPushError {
                try connection.query("ROLLBACK TO SAVEPOINT occurrence")
                try connection.preparedQuery(ScheduleFiringStatements.failed, [id, occurrence, "\(error.code): \(error.message)"])
                log.warning("scheduled push refused", ["occurrence": at, "code": String(error.code), "error": error.message])
                return
            } catch PostgresError.server(let state, let message) where state == .uniqueViolation && message.contains("messages_pkey") && attempt < 5 {
                // The msg_id drawn was taken by another node in the same millisecond: draw again.
                try connection.query("ROLLBACK TO SAVEPOINT occurrence")
            }
        }
    }
}
