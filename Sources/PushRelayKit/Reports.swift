/// One message's counters from `GET /v3/received`.
public struct ReceivedReport: Sendable, Decodable, Equatable {
    public var msgID: String
    /// Notifications APNs accepted.
    public var iosApnsSent: Int?
    public var iosApnsReceived: Int?
    public var iosMsgReceived: Int?

    private enum CodingKeys: String, CodingKey {
        case msgID = "msg_id", iosApnsSent = "ios_apns_sent", iosApnsReceived = "ios_apns_received", iosMsgReceived = "ios_msg_received"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // msg_id is a string on this relay; JPush itself sends a number.
        let id = try container.decode(JSONValue.self, forKey: .msgID)
        guard let text = id.stringValue else {
            throw DecodingError.dataCorruptedError(forKey: .msgID, in: container, debugDescription: "msg_id is neither string nor integer")
        }
        msgID = text
        iosApnsSent = try container.decodeIfPresent(Int.self, forKey: .iosApnsSent)
        iosApnsReceived = try container.decodeIfPresent(Int.self, forKey: .iosApnsReceived)
        iosMsgReceived = try container.decodeIfPresent(Int.self, forKey: .iosMsgReceived)
    }
}

/// `POST /v3/status/message`: what happened to one message on one device.
public enum DeliveryStatus: Int, Sendable, Decodable, Equatable {
    case delivered = 0, notDelivered = 1, notInApp = 2, notATarget = 3, error = 4
}

/// A device's online state from `POST /v3/devices/status`.
public struct DeviceOnlineStatus: Sendable, Decodable, Equatable {
    public var online: Bool
    /// `yyyy-MM-dd HH:mm:ss` UTC, nil when never seen.
    public var lastOnlineTime: String?

    private enum CodingKeys: String, CodingKey { case online, lastOnlineTime = "last_online_time" }
}

/// A device's tags, alias and mobile from `GET /v3/devices/{rid}`.
public struct DeviceInfo: Sendable, Decodable, Equatable {
    public var tags: [String]
    public var alias: String?
    public var mobile: String?

    private enum CodingKeys: String, CodingKey { case tags, alias, mobile }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tags = try container.decodeIfPresent([String].self, forKey: .tags) ?? []
        alias = try container.decodeIfPresent(String.self, forKey: .alias)
        mobile = try container.decodeIfPresent(String.self, forKey: .mobile)
    }
}

/// A change to one device (`POST /v3/devices/{rid}`); nil fields are left alone.
public struct DeviceUpdate: Sendable, Encodable, Equatable {
    public var addTags: [String]
    public var removeTags: [String]
    /// Drops every tag (`"tags": ""`); `addTags` and `removeTags` are then not sent.
    public var clearTags: Bool
    /// `""` removes the alias.
    public var alias: String?
    public var mobile: String?
    /// The badge the relay stores for `"+1"` pushes (extension).
    public var badge: Int?

    public init(addTags: [String] = [], removeTags: [String] = [], clearTags: Bool = false, alias: String? = nil,
                mobile: String? = nil, badge: Int? = nil) {
        self.addTags = addTags
        self.removeTags = removeTags
        self.clearTags = clearTags
        self.alias = alias
        self.mobile = mobile
        self.badge = badge
    }

    private enum Keys: String, CodingKey { case tags, alias, mobile, badge }
    private struct TagChange: Encodable {
        var add: [String]?
        var remove: [String]?
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        if clearTags {
            try container.encode("", forKey: .tags)
        } else if !addTags.isEmpty || !removeTags.isEmpty {
            try container.encode(TagChange(add: addTags.isEmpty ? nil : addTags, remove: removeTags.isEmpty ? nil : removeTags), forKey: .tags)
        }
        try container.encodeIfPresent(alias, forKey: .alias)
        try container.encodeIfPresent(mobile, forKey: .mobile)
        try container.encodeIfPresent(badge, forKey: .badge)
    }
}
