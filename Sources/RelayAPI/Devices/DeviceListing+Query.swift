import RelayCore
import RelayStore

extension DeviceListing {
    /// Reads the query string; every bad value is a 400 that names it.
    init(query: [String: String]) throws(JPushError) {
        let query = QueryParameters(query)
        self.init(alias: query.string("alias"), tag: query.string("tag"),
                  environment: try query.choice("environment", DeviceEnvironment.self),
                  platform: try query.choice("platform", DevicePlatform.self), active: try query.bool("active"),
                  // A cursor is the next_cursor of a previous page: a device id.
                  after: try query.integer("after", in: 0...Int64.max) ?? 0,
                  limit: try query.integer("limit", in: 1...Self.maxLimit) ?? Self.defaultLimit)
    }
}

/// A device in the admin listing's answer: what is not known or did not happen is null.
extension ListedDevice: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnswerKey.self)
        for (key, value) in [("registration_id", registrationID), ("platform", platform), ("token", token),
                             ("created_at", createdAt), ("registered_at", registeredAt), ("last_seen_at", lastSeenAt)] {
            try container.encode(value, forKey: AnswerKey(key))
        }
        for (key, value) in [("environment", environment), ("alias", alias), ("mobile", mobile), ("invalidated_at", invalidatedAt),
                             ("invalidation_reason", invalidationReason), ("apns_invalidated_at", apnsInvalidatedAt),
                             ("reactivated_at", reactivatedAt)] {
            try container.encode(value, forKey: AnswerKey(key))
        }
        try container.encode(badge, forKey: "badge")
        try container.encode(active, forKey: "active")
        try container.encode(tags, forKey: "tags")
        try container.encode(pushTokens, forKey: "push_tokens")
    }
}
