import RelayCore

/// `POST /v3/devices` with `token_type: "voip"`: the PushKit VoIP token of a device already
/// registered with its notification token, named by its registration id. A device holds one
/// VoIP token beside its notification token; VoIP pushes go to the first, every other push to
/// the second (docs/api.md, "VoIP tokens").
public struct VoIPRegistration: Sendable, Equatable {
    public var registrationID: String
    public var token: DeviceToken

    public static let fields: Set<String> = ["platform", "token", "token_type", "registration_id", "environment"]

    public init(registrationID: String, token: DeviceToken) {
        self.registrationID = registrationID
        self.token = token
    }

    /// Whether a registration body asks for this (`token_type: "voip"`); `"apns"` or none is
    /// a notification token (`DeviceRegistration`).
    ///
    /// - Throws: `DeviceFieldError` for another token type.
    public static func isAsked(in body: JSONObjectReader) throws -> Bool {
        switch try body.optionalString("token_type") {
        case nil, "apns"?: return false
        case "voip"?: return true
        case let other?: throw DeviceFieldError("token_type must be \"apns\" or \"voip\", got \(InputEcho.quoted(other))")
        }
    }

    /// - Throws: `JPushError` for the JSON's shape, `DeviceFieldError` for a refused value.
    ///   The environment is the device's; one given is checked and otherwise unused.
    public init(_ body: JSONObjectReader) throws {
        try body.rejectUnknownKeys(allowed: Self.fields)
        guard try DevicePlatform(parsing: try body.optionalString("platform") ?? "ios") == .ios else {
            throw DeviceFieldError("a VoIP token belongs to an iOS device: platform must be \"ios\"")
        }
        guard let rid = try body.optionalString("registration_id") else {
            throw DeviceFieldError("registration_id is required with token_type \"voip\": register the device's notification token first")
        }
        if let environment = try body.optionalString("environment") { _ = try DeviceEnvironment(parsing: environment) }
        self.init(registrationID: rid, token: try DeviceToken(parsing: try body.string("token"), platform: .ios))
    }
}
