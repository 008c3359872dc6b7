import Foundation

/// A received notification's content: `aps` and the extras beside it.
public struct NotificationPayload: Sendable, Equatable {
    /// Every top-level key but `aps`: the push's `extras` plus the relay's `_j_msgid`.
    public var extras: [String: JSONValue]
    public var aps: JSONValue?
    /// The relay's message id, or the OS's request identifier: what makes a tap unique.
    public var identifier: String?

    /// The relay's message id: the top-level `_j_msgid`, a JSON number when all digits, else a
    /// string. Nil for a notification the relay did not send.
    public var messageID: String? { Self.messageID(in: extras) }

    private static func messageID(in extras: [String: JSONValue]) -> String? { extras["_j_msgid"]?.stringValue }

    public init(extras: [String: JSONValue], aps: JSONValue? = nil, identifier: String? = nil) {
        self.extras = extras
        self.aps = aps
        self.identifier = Self.messageID(in: extras) ?? identifier
    }

    /// From APNs' JSON payload.
    public init(json: Data, identifier: String? = nil) throws {
        var object = try JSONDecoder().decode([String: JSONValue].self, from: json)
        let aps = object.removeValue(forKey: "aps")
        self.init(extras: object, aps: aps, identifier: identifier)
    }

    /// From a notification's `userInfo` (keys that are not strings are dropped): the OS's
    /// untyped dictionary, read back through JSON into `JSONValue`s right here.
    public init(userInfo: [AnyHashable: Any], identifier: String? = nil) throws {
        let strings = NSMutableDictionary()
        for (key, value) in userInfo {
            if let key = key.base as? String { strings[key] = value }
        }
        try self.init(json: JSONSerialization.data(withJSONObject: strings), identifier: identifier)
    }

    /// Decodes the extras as `T` (a route's parameters).
    public func decodeExtras<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(extras))
    }
}
