import RelayCore

/// A validated `PATCH /client/v1/devices/{registration_id}` body: the device's new token or
/// environment, checked by the same rules as a registration's, for the device's platform;
/// its stored badge (what `"+N"` pushes count from: the app resets it when the user has seen
/// them); and its alias and tags, when its app lets devices set them (`client_may_set_alias`).
public struct ClientDeviceChange: Sendable, Equatable {
    static let labelKeys: Set<String> = ["alias", "tags"]

    /// nil keeps the token.
    public var token: DeviceToken?
    /// nil keeps the environment (always, for Android: FCM has none).
    public var environment: DeviceEnvironment?
    /// The badge, alias and tags to change, by `POST /v3/devices/{registration_id}`'s rules;
    /// nil keeps them.
    public var labels: DeviceUpdate?

    public init(token: DeviceToken?, environment: DeviceEnvironment?, labels: DeviceUpdate? = nil) {
        self.token = token
        self.environment = environment
        self.labels = labels
    }

    /// - Parameter maySetLabels: the app lets its devices set their own alias and tags.
    /// - Throws: `JPushError` for the JSON's shape, `DeviceFieldError` for a refused value.
    public init(_ body: JSONObjectReader, platform: DevicePlatform, maySetLabels: Bool = false) throws {
        if !maySetLabels { try Self.refuseLabels(body) }
        let registryKeys = maySetLabels ? Self.labelKeys.union(["badge"]) : ["badge"]
        try body.rejectUnknownKeys(allowed: registryKeys.union(["token", "environment"]))
        let token = try body.optionalString("token")
        let environment = try body.optionalString("environment")
        let registryFields = body.fields.filter { registryKeys.contains($0.key) && $0.value != .null }
        labels = registryFields.isEmpty ? nil : try DeviceUpdate(try JSONObjectReader(.object(registryFields), path: ""))
        guard token != nil || environment != nil || labels != nil else {
            throw DeviceFieldError(maySetLabels ? "give token, environment, badge, alias or tags" : "give token, environment or badge")
        }
        self.token = try token.map { raw throws(DeviceFieldError) in try DeviceToken(parsing: raw, platform: platform) }
        self.environment = try environment.flatMap { raw throws(DeviceFieldError) in try DeviceRegistration.environment(platform, given: raw) }
    }

    /// Whether the token or the environment changes.
    public var changesRegistration: Bool { token != nil || environment != nil }

    /// A device may not set its alias or tags unless its app allows it (an alias set from a
    /// phone would let anyone claim another user's alias): the app's backend sets them.
    public static func refuseLabels(_ body: JSONObjectReader) throws(DeviceFieldError) {
        if let field = ["alias", "tags"].first(where: body.has) {
            throw DeviceFieldError(
                "\(field) cannot be set from a device unless the app allows it (client_may_set_alias); the app's backend sets it with POST /v3/devices/{registration_id}")
        }
    }
}
