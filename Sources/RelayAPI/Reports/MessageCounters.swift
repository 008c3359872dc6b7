import PostgresStore
import PushCore

/// One message's delivery counters as the pipeline keeps them on its `messages` row, and
/// the figures reports derive from them (no delivery row is ever counted).
struct MessageCounters: Sendable, Equatable {
    var id: MessageID
    var state: MessageState
    var target: Int
    /// Accepted by APNs.
    var sent: Int
    var failed: Int
    var invalidated: Int
    var expired: Int
    var retries: Int
    /// ISO 8601 in UTC, as the database renders them.
    var createdAt: String
    var firstSentAt: String?
    var lastSentAt: String?
    var finishedAt: String?
    /// Seconds from acceptance to the last outcome; nil until the message is finished.
    var durationSeconds: Double?
    /// The documented parts of the push this relay stored but does not deliver
    /// (`PushBodyKeys.ignoredParts`), when the report read the message's body.
    var ignored: [String] = []

    /// Targets without an outcome: the rest still to send, or 0 once the message is
    /// withdrawn (what was not sent then never will be; see `withdrawn`).
    var pending: Int {
        state == .withdrawn ? 0 : remainder
    }

    /// Targets a withdrawal stopped before they were sent.
    var withdrawn: Int {
        state == .withdrawn ? remainder : 0
    }

    /// Accepted by APNs per second over the whole duration; nil until finished, or when
    /// the message finished within a millisecond.
    var throughputPerSecond: Double? {
        guard let durationSeconds, durationSeconds >= 0.001 else { return nil }
        return (Double(sent) / durationSeconds * 10).rounded() / 10
    }

    private var remainder: Int {
        max(0, target - sent - failed - invalidated - expired)
    }
}

extension MessageCounters {
    /// Reads a `messages` row (its id, state, counters and timestamps, and its body when
    /// selected), as every report selects it.
    init(row: PostgresRow) throws {
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
        ignored = row["body"].map { PushBodyKeys.ignoredParts(ofBody: Array($0.utf8)) } ?? []
    }
}
