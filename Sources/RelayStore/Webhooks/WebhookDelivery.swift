import PostgresStore
import RelayCore

/// Where an outbox event stands (`webhook_events.state`).
public enum WebhookDeliveryState: String, Sendable, CaseIterable, Encodable {
    /// Waiting for its next attempt, or being delivered.
    case pending
    case delivered
    /// Retried past the horizon without a 2xx: kept until an admin retries it.
    case dead
}

/// The query of `GET /admin/v1/apps/{app_key}/webhook/deliveries`.
public struct WebhookDeliveryListing: Sendable, Equatable {
    public static let defaultLimit = 50
    public static let maxLimit = 500

    /// The previous page's `next_cursor`: only older events.
    public var before: Int64?
    public var state: WebhookDeliveryState?
    public var limit: Int

    public init(before: Int64? = nil, state: WebhookDeliveryState? = nil, limit: Int = defaultLimit) {
        self.before = before
        self.state = state
        self.limit = limit
    }
}

/// One outbox event as the deliveries listing shows it.
public struct WebhookDelivery: Encodable, Sendable, Equatable {
    public var id: Int64
    public var event: String
    /// A push's callback URL; nil for the app's webhook URL.
    public var url: String?
    public var state: WebhookDeliveryState
    public var attempts: Int
    public var lastStatus: Int?
    public var lastError: String?
    public var createdAt: String
    public var lastAttemptAt: String?
    public var nextAttemptAt: String?
    public var finishedAt: String?
    /// The event as sent.
    public var payload: JSONValue

    init(row: PostgresRow) throws {
        id = Int64(try row.int("id"))
        event = try row.string("event")
        url = row["url"]
        state = try row.value("state")
        attempts = try row.int("attempts")
        lastStatus = row["last_status"].flatMap { Int($0) }
        lastError = row["last_error"]
        createdAt = try row.string("created_at")
        lastAttemptAt = row["last_attempt_at"]
        nextAttemptAt = row["next_attempt_at"]
        finishedAt = row["finished_at"]
        do {
            payload = try JSONValue.parse(Array(try row.string("payload").utf8))
        } catch {
            throw PostgresError.protocolViolation("webhook event \(id): payload is not JSON")
        }
    }

    private enum CodingKeys: String, CodingKey {
        case id, event, url, state, attempts, lastStatus = "last_status", lastError = "last_error", createdAt = "created_at"
        case lastAttemptAt = "last_attempt_at", nextAttemptAt = "next_attempt_at", finishedAt = "finished_at", payload
    }

    /// Absent values are null, not left out; the id is a string, like other cursors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(String(id), forKey: .id)
        try container.encode(event, forKey: .event)
        try container.encode(url, forKey: .url)
        try container.encode(state, forKey: .state)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(lastStatus, forKey: .lastStatus)
        try container.encode(lastError, forKey: .lastError)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(lastAttemptAt, forKey: .lastAttemptAt)
        try container.encode(nextAttemptAt, forKey: .nextAttemptAt)
        try container.encode(finishedAt, forKey: .finishedAt)
        try container.encode(payload, forKey: .payload)
    }
}
