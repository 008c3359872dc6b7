import PostgresStore
import RelayCore
import RelayCrypto

/// What the API shows of an app's webhook: never its secret.
public struct WebhookMetadata: Encodable, Sendable, Equatable {
    public var url: String
    public var events: [String]
    public var createdAt: String
    public var updatedAt: String
    /// Events waiting in the outbox (or being delivered), and dead letters.
    public var pending: Int
    public var dead: Int

    init(row: PostgresRow) throws {
        url = try row.string("url")
        events = try row.string("events").split(separator: " ").map(String.init)
        createdAt = try row.string("created_at")
        updatedAt = try row.string("updated_at")
        pending = try row.int("pending")
        dead = try row.int("dead")
    }

    private enum CodingKeys: String, CodingKey {
        case url, events, createdAt = "created_at", updatedAt = "updated_at", pending, dead
    }
}

/// The `webhooks` table and the admin's view of `webhook_events` (`WebhookStatements`).
public struct WebhookRepository: Sendable {
    public let pool: PostgresPool
    public let box: SecretBox

    public init(pool: PostgresPool, box: SecretBox) {
        self.pool = pool
        self.box = box
    }

    /// Sets (or replaces) the app's webhook with a new signing `secret`, sealed; nil when the
    /// app does not exist.
    public func put(appKey: String, url: String, events: [WebhookEventType], secret: String) async throws -> WebhookMetadata? {
        let sealed = box.seal(Array(secret.utf8), associatedData: WebhookSignature.associatedData(appKey: appKey))
        return try await pool.preparedQuery(WebhookStatements.put, [appKey, url, SQLArray.text(events.map(\.rawValue)), sealed])
            .first.map(WebhookMetadata.init(row:))
    }

    /// Nil when the app has no webhook (or does not exist).
    public func metadata(appKey: String) async throws -> WebhookMetadata? {
        try await pool.preparedQuery(WebhookStatements.metadata, [appKey]).first.map(WebhookMetadata.init(row:))
    }

    /// Removes the app's webhook and its events; false when there was none.
    public func delete(appKey: String) async throws -> Bool {
        try await pool.preparedQuery(WebhookStatements.delete, [appKey]).affectedRows > 0
    }

    /// Of `appKeys`, those whose app has a webhook (whose pushes' callbacks are signed).
    public func withWebhook(appKeys: [String]) async throws -> Set<String> {
        guard !appKeys.isEmpty else { return [] }
        return Set(try await pool.preparedQuery(WebhookStatements.withWebhook, [SQLArray.text(appKeys)]).map { try $0.string("app_key") })
    }

    /// One page of the app's events, newest first.
    public func deliveries(appKey: String, _ listing: WebhookDeliveryListing) async throws -> (deliveries: [WebhookDelivery], next: String?) {
        let rows = try await pool.preparedQuery(WebhookStatements.deliveries, [
            appKey, listing.limit + 1, listing.before ?? Int64.max, listing.state?.rawValue,
        ])
        let deliveries = try rows.prefix(listing.limit).map(WebhookDelivery.init(row:))
        return (deliveries, rows.count > listing.limit ? deliveries.last.map { String($0.id) } : nil)
    }

    /// Puts the app's dead letters back in the outbox, due now; how many.
    public func retryDead(appKey: String) async throws -> Int {
        try await pool.preparedQuery(WebhookStatements.retryDead, [appKey]).count
    }
}
