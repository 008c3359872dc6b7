import Foundation

/// Where the device side registers: the relay itself (`PushRelayClient`), or the app's
/// own backend that forwards to the relay, so the master secret never ships in the app.
public protocol DeviceRegistrationService: Sendable {
    /// Registers the token and returns its registration id.
    func register(token: String, environment: APNsEnvironment, alias: String?, tags: [String]) async throws -> String
    /// Changes the device's alias, tags or stored badge.
    func update(registrationID: String, _ update: DeviceUpdate) async throws
}

extension PushRelayClient: DeviceRegistrationService {
    public func register(token: String, environment: APNsEnvironment, alias: String?, tags: [String]) async throws -> String {
        try await registerDevice(token: token, environment: environment, alias: alias, tags: tags)
    }

    public func update(registrationID: String, _ update: DeviceUpdate) async throws {
        try await updateDevice(registrationID, update)
    }
}

/// What the registrar remembers across launches.
public struct RegistrationRecord: Sendable, Codable, Equatable {
    public var token: String
    public var environment: APNsEnvironment
    public var registrationID: String
    /// The alias and tags the relay holds for this device.
    public var alias: String?
    public var tags: Set<String>

    public init(token: String, environment: APNsEnvironment, registrationID: String, alias: String? = nil, tags: Set<String> = []) {
        self.token = token
        self.environment = environment
        self.registrationID = registrationID
        self.alias = alias
        self.tags = tags
    }

    /// Whether a token APNs just handed over must be registered again: a new token (APNs
    /// rotates them, restores from backup change them) or another environment.
    public static func needsRegistration(_ record: RegistrationRecord?, token: String, environment: APNsEnvironment) -> Bool {
        guard let record else { return true }
        return record.token != token || record.environment != environment
    }
}

/// Keeps the record (UserDefaults in an app, memory in tests).
public protocol RegistrationStore: Sendable {
    func load() -> RegistrationRecord?
    func save(_ record: RegistrationRecord?)
}

/// The record as JSON under one `UserDefaults` key.
public struct UserDefaultsRegistrationStore: RegistrationStore, @unchecked Sendable {
    // UserDefaults is thread-safe; it is just not marked Sendable.
    private let defaults: UserDefaults
    private let key: String

    public init(defaults: UserDefaults = .standard, key: String = "PushRelayKit.registration") {
        self.defaults = defaults
        self.key = key
    }

    public func load() -> RegistrationRecord? {
        defaults.data(forKey: key).flatMap { try? JSONDecoder().decode(RegistrationRecord.self, from: $0) }
    }

    public func save(_ record: RegistrationRecord?) {
        if let record, let data = try? JSONEncoder().encode(record) { defaults.set(data, forKey: key) } else { defaults.removeObject(forKey: key) }
    }
}
