import RelayCore

/// JPush's `callback`: where this message's receipts go, what they carry back and which
/// ones (docs/callback.md). The events are written to the webhook outbox beside the cause
/// (migration 0047) and signed with the app's webhook secret; an app without a webhook has
/// its callbacks ignored (named in the answer's `ignored`).
public struct PushCallback: Sendable, Equatable {
    /// JPush's `type` bits, any combination of them.
    public struct Types: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// 送达回执: the device reported the notification received (`POST /client/v1/receipts`).
        public static let received = Types(rawValue: 1)
        /// 点击回执: the device reported it opened (tapped).
        public static let clicked = Types(rawValue: 2)
        /// 推送成功回执: the push request was accepted; one event per message.
        public static let accepted = Types(rawValue: 8)

        public static let all: Types = [.received, .clicked, .accepted]
        /// Without a `type`: the receipts, which is what JPush's callbacks are for.
        public static let `default`: Types = [.received, .clicked]
    }

    /// Nil: the app's webhook URL (JPush's "as configured in the console").
    public var url: WebhookURL?
    /// Echoed in every event of this message, as given.
    public var params: [String: JSONValue]
    public var types: Types

    /// The most bytes `params` may take as JSON: each event carries them.
    public static let maxParamsBytes = 1024

    public init(url: WebhookURL? = nil, params: [String: JSONValue] = [:], types: Types = .default) {
        self.url = url
        self.params = params
        self.types = types
    }

    /// `{url?, params?, type?}`; `type` an integer or its decimal text (JPush's Go SDK sends
    /// a string), one of 1, 2, 3, 8, 9, 10, 11.
    static func parse(_ reader: JSONObjectReader) throws(JPushError) -> PushCallback {
        try reader.rejectUnknownKeys(allowed: ["url", "params", "type"])
        var callback = PushCallback()
        if let text = try reader.optionalString("url") {
            do {
                callback.url = try WebhookURL(parsing: text)
            } catch {
                throw JPushError.illegalValue("\(reader.name("url")): \(error.description)")
            }
        }
        if let params = try reader.optionalFreeObject("params") {
            let size = CanonicalJSON.bytes(.object(params)).count
            guard size <= maxParamsBytes else {
                throw JPushError.illegalValue("\(reader.name("params")) is \(size) bytes as JSON; at most \(maxParamsBytes) are allowed")
            }
            callback.params = params
        }
        if let types = try Self.types(reader) { callback.types = types }
        return callback
    }

    private static func types(_ reader: JSONObjectReader) throws(JPushError) -> Types? {
        let value = reader.fields["type"] ?? .null
        let number: Int64?
        switch value {
        case .null: return nil
        case .number: number = value.int64
        case .string(let text) where !text.isEmpty && text.utf8.count <= 2 && text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }): number = Int64(text)
        default: number = nil
        }
        guard let number, number > 0, number <= Int64(Types.all.rawValue), Types(rawValue: Int(number)).isSubset(of: .all) else {
            throw JPushError.illegalValue(
                "\(reader.name("type")) must be 1 (received), 2 (clicked), 8 (accepted) or their sum (3, 9, 10, 11), got \(value.shortText)")
        }
        return Types(rawValue: Int(number))
    }
}
