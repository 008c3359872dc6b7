/// Registration with a client key, for `PushRegistrar`: the app registers itself, with no
/// backend proxy and no master secret in the app.
///
/// Keeps the device secret in the injected store (the Keychain, shared with the Notification
/// Service Extension). A new token or environment moves the registration (`PATCH`) so its id,
/// and what the backend attached to it, stay; when the relay refuses that (secret lost or
/// renewed elsewhere, token taken), it registers anew. Alias, tags and the badge are the
/// backend's to set: a client key may not, so `update` throws `.notAllowed`.
public actor ClientKeyRegistration: DeviceRegistrationService {
    /// The relay, as this device's client.
    public nonisolated let client: PushRelayDeviceClient
    private let store: any DeviceCredentialStore

    public init(client: PushRelayDeviceClient, store: any DeviceCredentialStore) {
        self.client = client
        self.store = store
    }

    /// What the phone holds now (read from the store: the other process may have renewed it).
    public var credentials: DeviceCredentials? { store.load() }

    public func register(token: String, environment: APNsEnvironment, alias: String?, tags: [String]) async throws -> String {
        guard alias == nil && tags.isEmpty else { throw Self.labelsRefusal }
        switch ClientRegistrationStep.plan(held: store.load(), token: token, environment: environment) {
        case .upToDate(let held):
            return held.registrationID
        case .register:
            return try await registerAnew(token: token, environment: environment).registrationID
        case .update(let held, let newToken, let newEnvironment):
            do {
                try await client.update(held, token: newToken, environment: newEnvironment)
            } catch {
                guard ClientRegistrationStep.registersAfterFailedUpdate(error) else { throw error }
                return try await registerAnew(token: token, environment: environment).registrationID
            }
            var moved = held
            moved.token = token
            moved.environment = environment
            store.save(moved)
            return moved.registrationID
        }
    }

    public func update(registrationID: String, _ update: DeviceUpdate) async throws {
        throw Self.labelsRefusal
    }

    /// A new device secret for the registration held (the relay refused the one stored):
    /// registering the same token again keeps the registration id. Nil when nothing is held.
    public func renewSecret() async throws(PushRelayError) -> DeviceCredentials? {
        guard let held = store.load() else { return nil }
        return try await registerAnew(token: held.token, environment: held.environment)
    }

    private func registerAnew(token: String, environment: APNsEnvironment) async throws(PushRelayError) -> DeviceCredentials {
        let credentials = try await client.register(token: token, environment: environment)
        store.save(credentials)
        return credentials
    }

    private static let labelsRefusal = PushRelayError.notAllowed(
        "a client key cannot set the alias, tags or badge: the app's backend sets them with the master secret (docs/client-keys.md)")
}
