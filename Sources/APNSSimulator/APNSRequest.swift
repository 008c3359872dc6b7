import CSystem

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
    /// `apns-channel-id` (channel management, broadcasts).
    public var channelID: String?
    /// `apns-request-id` (channel management, broadcasts).
    public var requestID: String?
    /// Set when an `apns-*` header or `authorization` came more than once.
    public var hasDuplicateHeader: Bool
    public private(set) var body: [UInt8]
    /// The full length received, which may exceed `body.count`.
    public private(set) var bodyLength: Int

    /// Bytes of body worth keeping: enough to tell "too large" from "fits" for every push
    /// type, and to read a whole FCM request (the FCM simulator answers larger ones as too big).
    public static let bodyRetentionLimit = max(APNSRequestValidator.voipPayloadLimit, 16 * 1024) + 1

    public init(
        method: String = "POST", path: String, authorization: String? = nil, topic: String? = nil,
        pushType: String? = nil, priority: String? = nil, expiration: String? = nil,
        apnsID: String? = nil, collapseID: String? = nil, channelID: String? = nil, requestID: String? = nil,
        hasDuplicateHeader: Bool = false,
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
        self.channelID = channelID
        self.requestID = requestID
        self.hasDuplicateHeader = hasDuplicateHeader
        self.body = body
        self.bodyLength = bodyLength ?? body.count
    }

    /// Stores a header the simulator cares about; ignores the rest.
    ///
    /// - Parameters:
    ///   - name: the lower-case header name, as HTTP/2 requires.
    ///   - value: the value; copied only for headers that are kept.
    public mutating func setHeader(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let field = HeaderField(name: name) else { return }
        let text = String(decoding: value, as: UTF8.self)
        switch field {
        case .method: method = text
        case .path: path = text
        case .authorization: if Self.replace(&authorization, text) { hasDuplicateHeader = true }
        case .topic: if Self.replace(&topic, text) { hasDuplicateHeader = true }
        case .pushType: if Self.replace(&pushType, text) { hasDuplicateHeader = true }
        case .priority: if Self.replace(&priority, text) { hasDuplicateHeader = true }
        case .expiration: if Self.replace(&expiration, text) { hasDuplicateHeader = true }
        case .apnsID: if Self.replace(&apnsID, text) { hasDuplicateHeader = true }
        case .collapseID: if Self.replace(&collapseID, text) { hasDuplicateHeader = true }
        case .channelID: if Self.replace(&channelID, text) { hasDuplicateHeader = true }
        case .requestID: if Self.replace(&requestID, text) { hasDuplicateHeader = true }
        }
    }

    /// `setHeader` for Swift strings.
    public mutating func setHeader(_ name: String, _ value: String) {
        var name = name
        var value = value
        name.withUTF8 { name in value.withUTF8 { value in setHeader(name: name, value: value) } }
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

/// The headers `APNSRequest` keeps, recognised from their bytes without making a String
/// for every header of every request.
enum HeaderField: CaseIterable {
    case method, path, authorization, topic, pushType, priority, expiration, apnsID, collapseID, channelID, requestID

    var name: StaticString {
        switch self {
        case .method: ":method"
        case .path: ":path"
        case .authorization: "authorization"
        case .topic: "apns-topic"
        case .pushType: "apns-push-type"
        case .priority: "apns-priority"
        case .expiration: "apns-expiration"
        case .apnsID: "apns-id"
        case .collapseID: "apns-collapse-id"
        case .channelID: "apns-channel-id"
        case .requestID: "apns-request-id"
        }
    }

    init?(name: UnsafeBufferPointer<UInt8>) {
        guard let bytes = name.baseAddress else { return nil }
        for field in HeaderField.allCases {
            let expected = field.name
            if expected.utf8CodeUnitCount == name.count,
               memcmp(expected.utf8Start, bytes, name.count) == 0 {
                self = field
                return
            }
        }
        return nil
    }
}
