import Foundation

/// What the phone saw of a notification.
public enum ReceiptEvent: String, Sendable, Codable, Hashable {
    /// Arrived on the phone (reported by the Notification Service Extension).
    case received
    /// Tapped (reported by `NotificationRouter`).
    case opened
}

/// One receipt: a message the relay sent, what happened to it, and when (unix seconds).
public struct Receipt: Sendable, Codable, Hashable {
    public var msgID: String
    public var event: ReceiptEvent
    public var at: Int64

    public init(msgID: String, event: ReceiptEvent, at: Int64) {
        self.msgID = msgID
        self.event = event
        self.at = at
    }

    public init(msgID: String, event: ReceiptEvent, at date: Date) {
        self.init(msgID: msgID, event: event, at: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// What the queue collapses on: one receipt per message and event is enough.
    public struct Key: Sendable, Hashable {
        public var msgID: String
        public var event: ReceiptEvent
    }

    public var key: Key { Key(msgID: msgID, event: event) }

    private enum CodingKeys: String, CodingKey {
        case msgID = "msg_id", event, at
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let id = try container.decode(JSONValue.self, forKey: .msgID).stringValue else {
            throw DecodingError.dataCorruptedError(forKey: .msgID, in: container, debugDescription: "msg_id is neither a string nor an integer")
        }
        msgID = id
        event = try container.decode(ReceiptEvent.self, forKey: .event)
        at = try container.decode(Int64.self, forKey: .at)
    }

    /// `msg_id` as the payload carried it: a number when all digits, else a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if msgID.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int64(msgID) {
            try container.encode(number, forKey: .msgID)
        } else {
            try container.encode(msgID, forKey: .msgID)
        }
        try container.encode(event, forKey: .event)
        try container.encode(at, forKey: .at)
    }
}

/// The relay's answer to a batch of receipts: new ones, ones it already had, and ones it
/// dropped quietly (messages older than its retention, or unknown).
public struct ReceiptsRecorded: Sendable, Decodable, Equatable {
    public var recorded: Int
    public var duplicates: Int
    public var dropped: Int
}
