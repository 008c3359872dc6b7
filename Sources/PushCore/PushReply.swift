import RelayCore

/// The answer to an accepted (or validated) push: JPush's `{"sendno":"…","msg_id":"…"}`, and
/// `ignored` when the body had documented parts this relay keeps but does not deliver. SDKs
/// read only the keys they know, so the extra key keeps the answer JPush's.
public struct PushReply: Sendable, Equatable, Encodable {
    /// `options.sendno`, as a string.
    public var sendno: String
    /// The msg_id, as a string (JavaScript loses precision on large numbers).
    public var msgID: String
    /// `PushRequest.ignored`; absent when nothing was ignored.
    public var ignored: [String]?

    public init(sendno: Int, msgID: MessageID, ignored: [String] = []) {
        self.sendno = String(sendno)
        self.msgID = msgID.description
        self.ignored = ignored.isEmpty ? nil : ignored
    }

    enum CodingKeys: String, CodingKey {
        case sendno
        case msgID = "msg_id"
        case ignored
    }
}

/// One accepted entry of a batch push (`{"<cid>":{"msg_id":"…"}}`), with `ignored` as in
/// `PushReply`.
public struct BatchEntryReply: Sendable, Equatable, Encodable {
    public var msgID: String
    public var ignored: [String]?

    public init(msgID: MessageID, ignored: [String] = []) {
        self.msgID = msgID.description
        self.ignored = ignored.isEmpty ? nil : ignored
    }

    enum CodingKeys: String, CodingKey {
        case msgID = "msg_id"
        case ignored
    }
}
