/// One request as the simulator received it: the pseudo-headers, the `apns-*` headers it
/// reads, and the body (kept only up to one byte past the largest payload allowed).
public struct APNSRequest: Sendable, Equatable {
    public var method: String
    public var path: String
    public var authorization: String?
    public var topic: String?
    public var pushType: String?
    public var priority: String?
    public var expiration: String?
    public var apnsID: String?
    public var collapseID: String?
    /// Set when an `apns-*` header or `authorization` came more than once.
    public var hasDuplicateHeader: Bool
    public var body: [UInt8]
    /// The full length received, which may exceed `body.count`.
    public var bodyLength: Int

    /// Bytes of body worth keeping: enough to tell "too large" from "fits" for every push type.
    public static let bodyRetentionLimit = APNSRequestValidator.voipPayloadLimit + 1

    public init(
        method: String = "POST", path: String, authorization: String? = nil, topic: String? = nil,
        pushType: String? = nil, priority: String? = nil, expiration: String? = nil,
        apnsID: String? = nil, collapseID: String? = nil, hasDuplicateHeader: Bool = false,
        body: [UInt8] = [], bodyLength: Int? = nil
    ) {
        self.method = method
        self.path = path
        self.authorization = authorization
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.apnsID = apnsID
        self.collapseID = collapseID
        self.hasDuplicateHeader = hasDuplicateHeader
        self.body = body
        self.bodyLength = bodyLength ?? body.count
    }

    /// Stores a header the simulator cares about; ignores the rest.
    ///
    /// - Parameters:
    ///   - name: the lower-case header name, as HTTP/2 requires.
    ///   - value: a closure making the value, called only for headers that are kept.
    public mutating func setHeader(_ name: String, _ value: () -> String) {
        switch name {
        case ":method": method = value()
        case ":path": path = value()
        case "authorization": if Self.replace(&authorization, value()) { hasDuplicateHeader = true }
        case "apns-topic": if Self.replace(&topic, value()) { hasDuplicateHeader = true }
        case "apns-push-type": if Self.replace(&pushType, value()) { hasDuplicateHeader = true }
        case "apns-priority": if Self.replace(&priority, value()) { hasDuplicateHeader = true }
        case "apns-expiration": if Self.replace(&expiration, value()) { hasDuplicateHeader = true }
        case "apns-id": if Self.replace(&apnsID, value()) { hasDuplicateHeader = true }
        case "apns-collapse-id": if Self.replace(&collapseID, value()) { hasDuplicateHeader = true }
        default: break
        }
    }

    /// Sets `field`; returns whether it already had a value.
    private static func replace(_ field: inout String?, _ value: String) -> Bool {
        defer { field = value }
        return field != nil
    }

    /// Appends received body bytes, keeping at most `bodyRetentionLimit` of them.
    public mutating func appendBody(_ bytes: UnsafeRawBufferPointer) {
        bodyLength += bytes.count
        let room = APNSRequest.bodyRetentionLimit - body.count
        if room > 0 { body.append(contentsOf: bytes.prefix(room)) }
    }
}
