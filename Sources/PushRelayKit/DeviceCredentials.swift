/// What a client-key registration leaves on the phone: the device's registration id, the
/// secret that acts for it alone, and the token and environment they were issued for (a
/// lost secret is renewed by registering that token again).
public struct DeviceCredentials: Sendable, Codable, Equatable, CustomStringConvertible {
    public var registrationID: String
    public var deviceSecret: String
    public var token: String
    public var environment: APNsEnvironment

    public init(registrationID: String, deviceSecret: String, token: String, environment: APNsEnvironment) {
        self.registrationID = registrationID
        self.deviceSecret = deviceSecret
        self.token = token
        self.environment = environment
    }

    /// Without the secret: credentials may end up in a log.
    public var description: String { "DeviceCredentials(\(registrationID), \(environment.rawValue), token \(token.prefix(8))…)" }
}

/// Keeps the credentials, where both the app and its Notification Service Extension read
/// them (the extension reports receipts with the same secret).
public protocol DeviceCredentialStore: Sendable {
    func load() -> DeviceCredentials?
    func save(_ credentials: DeviceCredentials?)
}
