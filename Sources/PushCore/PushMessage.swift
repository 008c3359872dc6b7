import RelayCore

/// `message`: JPush's in-app message, which iOS receives here as a background push.
public struct PushMessage: Sendable, Equatable {
    public var msgContent: String
    public var title: String?
    public var contentType: String?
    public var extras: [String: JSONValue]?

    public init(msgContent: String, title: String? = nil, contentType: String? = nil, extras: [String: JSONValue]? = nil) {
        self.msgContent = msgContent
        self.title = title
        self.contentType = contentType
        self.extras = extras
    }

    /// - Parameter ignored: gets the paths of the parts not delivered (`message.test_message`).
    static func parse(_ reader: JSONObjectReader, ignored: inout [String]) throws(JPushError) -> PushMessage {
        ignored += try PushBodyKeys.message.check(reader)
        return PushMessage(
            msgContent: try reader.string("msg_content"),
            title: try reader.optionalString("title"),
            contentType: try reader.optionalString("content_type"),
            extras: try reader.optionalFreeObject("extras"))
    }
}
