import PostgresStore
import PushCore

/// One message's delivery counters as the pipeline keeps them on its `messages` row, and
/// the figures reports derive from them (no delivery row is ever counted).
public struct MessageCounters: Sendable, Equatable {
    public var id: MessageID
    public var state: MessageState
    public var target: Int
    /// Accepted by APNs or FCM.
    public var sent: Int
    /// Of `target` and `sent`, the Android devices (FCM); the rest are iOS (APNs).
    public var androidTarget = 0
    public var androidSent = 0
    /// Receipts the app reported (`POST /client/v1/receipts`): devices that said the
    /// notification reached them, and that it was opened; of them, the Android devices.
    public var received = 0
    public var opened = 0
    public var androidReceived = 0
    public var androidOpened = 0
    public var failed: Int
    public var invalidated: Int
    public var expired: Int
    public var retries: Int
    /// ISO 8601 in UTC, as the database renders them.
    public var createdAt: String
    public var firstSentAt: String?
    public var lastSentAt: String?
    public var finishedAt: String?
    /// Seconds from acceptance to the last outcome; nil until the message is finished.
    public var durationSeconds: Double?
    /// The documented parts of the push this relay stored but does not deliver
    /// (`PushBodyKeys.ignoredParts`), when the report read the message's body.
    public var ignored: [String] = []

    public init(id: MessageID, state: MessageState, target: Int, sent: Int, failed: Int, invalidated: Int, expired: Int, retries: Int,
                createdAt: String, firstSentAt: String? = nil, lastSentAt: String? = nil, finishedAt: String? = nil,
                durationSeconds: Double? = nil, ignored: [String] = []) {
        self.id = id
        self.state = state
        self.target = target
        self.sent = sent
        self.failed = failed
        self.invalidated = invalidated
        self.expired = expired
        self.retries = retries
        self.createdAt = createdAt
        self.firstSentAt = firstSentAt
        self.lastSentAt = lastSentAt
        self.finishedAt = finishedAt
        self.durationSeconds = durationSeconds
        self.ignored = ignored
    }

    public var iosTarget: Int { target - androidTarget }
    public var iosSent: Int { sent - androidSent }
    public var iosReceived: Int { received - androidReceived }
    public var iosOpened: Int { opened - androidOpened }

    /// Targets without an outcome: the rest still to send, or 0 once the message is
    /// withdrawn (what was not sent then never will be; see `withdrawn`).
    public var pending: Int {
        state == .withdrawn ? 0 : remainder
    }

    /// Targets a withdrawal stopped before they were sent.
    public var withdrawn: Int {
        state == .withdrawn ? remainder : 0
    }

    /// Accepted by APNs or FCM per second over the whole duration; nil until finished, or when
    /// the message finished within a millisecond.
    public var throughputPerSecond: Double? {
        guard let durationSeconds, durationSeconds >= 0.001 else { return nil }
        return (Double(sent) / durationSeconds * 10).rounded() / 10
    }

    private var remainder: Int {
        max(0, target - sent - failed - invalidated - expired)
    }
}

extension MessageCounters {
    /// The receipt counters' columns, of `message_receipt_counts` joined as `alias` by
    /// `receiptJoin` (no row yet: 0).
    public static func receiptColumns(_ alias: String) -> String {
        ["received", "opened", "android_received", "android_opened"]
            .map { "coalesce(\(alias).\($0), 0) AS \($0)_count" }.joined(separator: ", ")
    }

    /// Joins the receipt counters of `messages` (the message table's alias) as `alias`: one
    /// primary-key probe per message read (OFFSET 0 keeps the subquery a probe rather than a
    /// join the planner may turn into a scan of every message's counters).
    public static func receiptJoin(_ messages: String, as alias: String) -> String {
        """
        LEFT JOIN LATERAL (SELECT * FROM message_receipt_counts c WHERE c.message_id = \(messages).id OFFSET 0) \(alias) ON true
        """
    }

    /// Reads a `messages` row (its id, state, counters and timestamps, and its body when
    /// selected), as every report selects it.
    public init(row: PostgresRow) throws {
        let idText = try row.string("id")
        guard let id = MessageID(idText) else {
            throw PostgresError.protocolViolation("message row with id \(idText)")
        }
        self.init(
            id: id, state: try row.value("state"),
            target: try row.int("target_count"), sent: try row.int("sent_count"), failed: try row.int("failed_count"),
            invalidated: try row.int("invalidated_count"), expired: try row.int("expired_count"), retries: try row.int("retry_count"),
            createdAt: try row.string("created_at"), firstSentAt: row["first_sent_at"], lastSentAt: row["last_sent_at"],
            finishedAt: row["finished_at"], durationSeconds: row["duration_seconds"].flatMap(Double.init))
        androidTarget = try row.int("android_target_count")
        androidSent = try row.int("android_sent_count")
        received = try row.int("received_count")
        opened = try row.int("opened_count")
        androidReceived = try row.int("android_received_count")
        androidOpened = try row.int("android_opened_count")
        ignored = row["body"].map { PushBodyKeys.ignoredParts(ofBody: Array($0.utf8)) } ?? []
    }
}
