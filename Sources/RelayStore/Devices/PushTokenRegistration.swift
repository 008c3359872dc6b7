import RelayCore

/// `POST /v3/devices` with a `token_type` other than `"apns"`: a token of one `PushTokenKind`
/// (VoIP, location, complication, File Provider, Push to Talk) of a device already registered
/// with its notification token, named by its registration id. A device holds one token of
/// each kind beside its notification token; a push of that type goes to it, every other push
/// to the notification token (docs/api.md, "VoIP and other token kinds").
public struct PushTokenRegistration: Sendable, Equatable {
    public var kind: PushTokenKind
    public var registrationID: String
    public var token: DeviceToken

    public static let fields: Set<String> = ["platform", "token", "token_type", "registration_id", "environment"]

    public init(kind: PushTokenKind, registrationID: String, token: DeviceToken) {
        self.kind = kind
        self.registrationID = registrationID
        self.token = token
    }

    /// The kind a registration body asks for (`token_type`); nil for `"apns"` or none, a
    /// notification token (`DeviceRegistration`).
    ///
    /// - Throws: `DeviceFieldError` for another token type.
    public static func kind(in body: JSONObjectReader) throws -> PushTokenKind? {
        guard let type = try body.optionalString("token_type"), type != "apns" else { return nil }
        guard let kind = PushTokenKind(rawValue: type) else {
            let known = (["apns"] + PushTokenKind.allCases.map(\.rawValue)).map { "\"\($0)\"" }.joined(separator: ", ")
            throw DeviceFieldError("token_type must be one of \(known), got \(InputEcho.quoted(type))")
        }
        return kind
    }

    /// - Throws: `JPushError` for the JSON's shape, `DeviceFieldError` for a refused value.
    ///   The environment is the device's; one given is checked and otherwise unused.
    public init(_ body: JSONObjectReader, kind: PushTokenKind) throws {
        try body.rejectUnknownKeys(allowed: Self.fields)
        guard try DevicePlatform(parsing: try body.optionalString("platform") ?? "ios") == .ios else {
            throw DeviceFieldError("a \(kind.displayName) token belongs to an iOS device: platform must be \"ios\"")
        }
        guard let rid = try body.optionalString("registration_id") else {
            throw DeviceFieldError(
                "registration_id is required with token_type \"\(kind.rawValue)\": register the device's notification token first")
        }
        if let environment = try body.optionalString("environment") { _ = try DeviceEnvironment(parsing: environment) }
        self.init(kind: kind, registrationID: rid, token: try DeviceToken(parsing: try body.string("token"), platform: .ios))
    }
}
