/// JPush's `callback`: this push's receipts POSTed to `url` (else to the app's webhook URL)
/// with `params` in every event, signed with the app's webhook secret; the relay's
/// docs/callback.md has the events and how to verify them.
public struct PushCallback: Sendable, Encodable, Equatable {
    /// What is called back, JPush's `type` bits.
    public struct Types: OptionSet, Sendable, Encodable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A device reported the notification received.
        public static let received = Types(rawValue: 1)
        /// A device reported it opened.
        public static let clicked = Types(rawValue: 2)
        /// The push was accepted: one event for the message.
        public static let accepted = Types(rawValue: 8)
    }

    public var url: String?
    /// At most 1024 bytes as JSON.
    public var params: [String: JSONValue]?
    /// Nil: received and clicked.
    public var types: Types?

    public init(url: String? = nil, params: [String: JSONValue]? = nil, types: Types? = nil) {
        self.url = url
        self.params = params
        self.types = types
    }

    private enum CodingKeys: String, CodingKey { case url, params, types = "type" }
}
