/// One FCM message to one device: the registration token and the rest of FCM's `message`
/// object, built once per push and shared (the array is not copied) by every device's message.
public struct FCMMessage: Sendable {
    /// The device's registration token.
    public var token: String
    /// FCM's `message` object as JSON, without `token` (the client adds it): `{"notification":…,"data":…,"android":…}`.
    public var message: [UInt8]
    /// Unix seconds after which the message is not sent (`.failed(.expired)`); nil: no limit.
    public var expiration: Int?

    public init(token: String, message: [UInt8], expiration: Int? = nil) {
        self.token = token
        self.message = message
        self.expiration = expiration
    }

    /// The request body, `{"message":{"token":"…",<the rest>}}`, for a message `validate` passed.
    func body() -> [UInt8] {
        let object = message.drop { $0.isJSONSpace }
        var body: [UInt8] = []
        body.reserveCapacity(message.count + token.utf8.count + 32)
        body.append(contentsOf: #"{"message":{"token":""#.utf8)
        body.append(contentsOf: token.utf8)  // checked by `validate`: nothing in it needs escaping
        body.append(UInt8(ascii: "\""))
        let rest = object.dropFirst().drop { $0.isJSONSpace }
        if rest.first != UInt8(ascii: "}") { body.append(UInt8(ascii: ",")) }
        body.append(contentsOf: rest)
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// Checks what FCM would refuse without a round trip.
    ///
    /// - Returns: the first problem found, or nil.
    public func validate() -> FCMValidationError? {
        if token.isEmpty || token.utf8.count > FCMMessage.maxTokenLength || !token.utf8.allSatisfy(\.isTokenByte) {
            return .badToken
        }
        if message.count > FCMMessage.maxMessageSize { return .messageTooLarge(size: message.count, limit: FCMMessage.maxMessageSize) }
        guard message.first(where: { !$0.isJSONSpace }) == UInt8(ascii: "{"), message.last(where: { !$0.isJSONSpace }) == UInt8(ascii: "}")
        else { return .notAnObject }
        return nil
    }

    /// FCM tokens are ~150–200 characters; PushRelay takes up to 4 KB.
    public static let maxTokenLength = 4096
    /// FCM bounds the payload (notification + data) at 4096 bytes; the whole `message` object
    /// (with `android` options) may be somewhat larger, and FCM answers for what it holds.
    public static let maxMessageSize = 16 * 1024
}

/// Why a message was refused before sending.
public enum FCMValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    case badToken
    case notAnObject
    case messageTooLarge(size: Int, limit: Int)

    public var description: String {
        switch self {
        case .badToken: "registration token is empty, longer than 4096 bytes or has characters outside A-Z a-z 0-9 - _ :"
        case .notAnObject: "message is not a JSON object"
        case let .messageTooLarge(size, limit): "message is \(size) bytes, the limit is \(limit)"
        }
    }
}

extension UInt8 {
    fileprivate var isJSONSpace: Bool {
        self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09
    }

    /// Letters, digits, `-`, `_`, `:` (FCM's token alphabet).
    fileprivate var isTokenByte: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
            || self == UInt8(ascii: "-") || self == UInt8(ascii: "_") || self == UInt8(ascii: ":")
    }
}
