import Foundation
import PostgresStore
import PushCore
import PushPipeline
import RelayCore

/// Live Activities of one app at a time (migration 0048, `LiveActivityStatements`): the
/// devices' tokens and states, sending a start, update or end through the pipeline with the
/// activity's pacing, and an activity's report.
public struct LiveActivityRepository: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Stores a device's token or state.
    ///
    /// - Throws: `DeviceRepository.unknownRegistrationID` (7002) when the app has no iOS
    ///   device of that registration id.
    public func apply(appID: Int64, _ change: LiveActivityTokenChange) async throws {
        let rid = change.registrationID
        guard let uuid = RegistrationID.uuid(rid) else { throw DeviceRepository.unknownRegistrationID(rid) }
        let (statement, key, value): (SQLStatement, String, String) = switch change.change {
        case .startToken(let type, let token): (LiveActivityStatements.registerStartToken, type, token.text)
        case .activityToken(let activity, let token): (LiveActivityStatements.registerActivityToken, activity, token.text)
        case .state(let activity, let state): (LiveActivityStatements.setState, activity, state.rawValue)
        }
        guard try await pool.preparedQuery(statement, [appID, uuid, key, value]).first != nil else {
            throw DeviceRepository.unknownRegistrationID(rid)
        }
    }

    /// Accepts a Live Activity push in one transaction: the app's APNs credential checked,
    /// the message stored like any push (`MessageStore.accept(…on:)`), and an update or end
    /// paced (`LiveActivityPacer`): it may wait for its turn, and replaces an update still
    /// waiting, which is withdrawn.
    ///
    /// - Parameters:
    ///   - minimumInterval: milliseconds between an activity's updates; 0 sends each at once.
    ///   - now: Unix milliseconds.
    /// - Throws: 1003 (400) when the app's APNs credential for the push's environment is a
    ///   certificate (Live Activities need token authentication); `MessageStore.accept`'s
    ///   errors (1011 when no device holds a token).
    public func send(appID: Int64, _ push: LiveActivityPush, messages: MessageStore, minimumInterval: Int64,
                     now: Int64) async throws -> MessageStore.Accepted {
        guard let content = push.request.liveActivity else { preconditionFailure("a Live Activity push without live_activity") }
        let environment = push.request.options.apnsProduction ? "production" : "sandbox"
        return try await pool.withConnection { connection in
            try connection.transaction { connection in
                if let row = try connection.preparedQuery(LiveActivityStatements.credentialAuth, [appID, environment]).first,
                   try row.string("auth") == "certificate" {
                    throw JPushError.illegalValue(
                        "Live Activities need token (.p8) authentication: this app's \(environment) APNs credential is a certificate; upload a .p8 key for \(environment)")
                }
                let activity = try connection.preparedQuery(LiveActivityStatements.lockActivity, [
                    appID, content.activityID, content.attributesType,
                ])[0]
                var pacer = LiveActivityPacer(lastDueAt: activity["last_due_at"].flatMap { Int64($0) },
                                              waiting: activity["waiting_message_id"].flatMap { Int64($0) })
                let accepted = try messages.accept(appID: appID, request: push.request, body: push.body, on: connection)
                guard accepted.isNew else { return accepted }
                let action = content.event == .start
                    ? LiveActivityPacer.Action(sendAt: now)
                    : pacer.event(content.event, message: accepted.msgID.rawValue, now: now, interval: minimumInterval)
                if let replaced = action.withdraw.flatMap(MessageID.init(rawValue:)) {
                    _ = try messages.withdraw(appID: appID, msgID: replaced, on: connection)
                }
                if action.sendAt > now { try messages.hold(accepted.msgID, until: action.sendAt, on: connection) }
                try connection.preparedQuery(LiveActivityStatements.recordMessage, [
                    appID, content.activityID, accepted.msgID.rawValue, content.event.rawValue, action.sendAt,
                    pacer.lastDueAt, pacer.waiting,
                ])
                return accepted
            }
        }
    }

    /// The activity's report: its devices' tokens by state and its latest messages; nil when
    /// the app neither sent to it nor has a token for it.
    public func report(appID: Int64, activityID: String) async throws -> LiveActivityReport? {
        try await pool.withConnection { connection in
            var report = LiveActivityReport(activityID: activityID)
            for row in try connection.preparedQuery(LiveActivityStatements.tokenStates, [appID, activityID]) {
                report.devices[try row.string("state")] = try row.int("devices")
            }
            report.messages = try connection.preparedQuery(LiveActivityStatements.messages, [appID, activityID]).map { row in
                LiveActivityReport.Message(
                    msgID: String(try row.int("message_id")), event: try row.string("event"), sendAt: try row.string("send_at"),
                    state: row["state"], target: row["target_count"].flatMap { Int($0) }, sent: row["sent_count"].flatMap { Int($0) },
                    failed: row["failed_count"].flatMap { Int($0) })
            }
            return report.devices.isEmpty && report.messages.isEmpty ? nil : report
        }
    }

    /// The app's latest 20 activities, for the dashboard.
    public func recent(appKey: String) async throws -> [LiveActivitySummary] {
        try await pool.preparedQuery(LiveActivityStatements.recentActivities, [appKey]).map { row in
            LiveActivitySummary(activityID: try row.string("activity_id"), attributesType: row["attributes_type"],
                                messages: try row.int("messages"), sent: try row.int("sent"), failed: try row.int("failed"),
                                coalesced: try row.int("coalesced"))
        }
    }
}

/// `GET /v3/live-activities/{activity_id}`.
public struct LiveActivityReport: Sendable, Equatable, Encodable {
    public struct Message: Sendable, Equatable, Encodable {
        public var msgID: String
        public var event: String
        /// When it could go out (ISO 8601, UTC): later than accepted when it waited for its turn.
        public var sendAt: String
        /// The message's state (`withdrawn`: replaced by a newer update before its turn); nil
        /// once the retention removed the message.
        public var state: String?
        public var target: Int?
        public var sent: Int?
        public var failed: Int?

        enum CodingKeys: String, CodingKey {
            case msgID = "msg_id", event, sendAt = "send_at", state, target, sent, failed
        }
    }

    public var activityID: String
    /// Devices holding an update token, by the activity's state there.
    public var devices: [String: Int] = [:]
    public var messages: [Message] = []

    enum CodingKeys: String, CodingKey {
        case activityID = "activity_id", devices, messages
    }
}

/// A line of the dashboard's Live Activities card.
public struct LiveActivitySummary: Sendable, Equatable {
    public var activityID: String
    public var attributesType: String?
    public var messages: Int
    public var sent: Int
    public var failed: Int
    /// Updates replaced by a newer one before their turn.
    public var coalesced: Int
}
