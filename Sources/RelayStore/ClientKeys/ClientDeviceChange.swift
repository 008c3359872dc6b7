import RelayCore

/// A validated `PATCH /client/v1/devices/{registration_id}` body: the device's new token or
/// environment, checked by the same rules as a registration's, for the device's platform.
public struct ClientDeviceChange: Sendable, Equatable {
    /// nil keeps the token.
    public var token: DeviceToken?
    /// nil keeps the environment (always, for Android: FCM has none).
    public var environment: DeviceEnvironment?

    public init(token: DeviceToken?, environment: DeviceEnvironment?) {
        self.token = token
        self.environment = environment
    }

    /// - Throws: `JPushError` for the JSON's shape, `DeviceFieldError` for a refused value.
    public init(_ body: JSONObjectReader, platform: DevicePlatform) throws {
        try Self.refuseLabels(body)
        try body.rejectUnknownKeys(allowed: ["token", "environment"])
        let token = try body.optionalString("token")
        let environment = try body.optionalString("environment")
        guard token != nil || environment != nil else { throw DeviceFieldError("give token, environment or both") }
        self.token = try token.map { raw throws(DeviceFieldError) in try DeviceToken(parsing: raw, platform: platform) }
        self.environment = try environment.flatMap { raw throws(DeviceFieldError) in try DeviceRegistration.environment(platform, given: raw) }
    }

    /// A device may not set its alias or tags (an alias set from a phone would let anyone
    /// claim another user's alias): the app's backend sets them.
    public static func refuseLabels(_ body: JSONObjectReader) throws(DeviceFieldError) {
        if let field = ["alias", "tags"].first(where: body.has) {
            throw DeviceFieldError("\(field) cannot be set from a device; the app's backend sets it with POST /v3/devices/{registration_id}")
        }
    }
}
