/// Registration with a client key, for `PushRegistrar`: the app registers itself, with no
/// backend proxy and no master secret in the app.
///
/// Keeps the device secret in the injected store (the Keychain, shared with the Notification
/// Service Extension). A new token or environment moves the registration (`PATCH`) so its id,
/// and what the backend attached to it, stay; when the relay refuses that (secret lost or
/// renewed elsewhere, token taken), it registers anew. Alias and tags are the backend's to
/// set, unless the app lets its devices set their own (`client_may_set_alias`; else the relay
/// answers 400, code 7002); the relay's badge is always the backend's (`.notAllowed`).
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

    /// Registers (or moves) the token; an alias or tags the app set go in a second request, as
    /// a registration never carries them.
    public func register(token: String, environment: APNsEnvironment, alias: String?, tags: [String]) async throws -> String {
        let credentials = try await registration(token: token, environment: environment)
        let labels = DeviceUpdate(addTags: tags, alias: alias)
        if labels != DeviceUpdate() { try await client.setLabels(credentials, labels) }
        return credentials.registrationID
    }

    private func registration(token: String, environment: APNsEnvironment) async throws(PushRelayError) -> DeviceCredentials {
        switch ClientRegistrationStep.plan(held: store.load(), token: token, environment: environment) {
        case .upToDate(let held):
            return held
        case .register:
            return try await registerAnew(token: token, environment: environment)
        case .update(let held, let newToken, let newEnvironment):
            do {
                try await client.update(held, token: newToken, environment: newEnvironment)
            } catch {
                guard ClientRegistrationStep.registersAfterFailedUpdate(error) else { throw error }
                return try await registerAnew(token: token, environment: environment)
            }
            var moved = held
            moved.token = token
            moved.environment = environment
            store.save(moved)
            return moved
        }
    }

    /// Changes the device's alias or tags (when its app allows it); the badge and mobile are the backend's.
    public func update(registrationID: String, _ update: DeviceUpdate) async throws {
        guard update.badge == nil && update.mobile == nil else { throw Self.backendOnly }
        guard let held = store.load(), held.registrationID == registrationID else {
            throw PushRelayError.notAllowed("no device secret held for registration \(registrationID)")
        }
        try await client.setLabels(held, update)
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

    private static let backendOnly = PushRelayError.notAllowed(
        "a device cannot set the relay's badge or mobile: the app's backend sets them with the master secret (docs/client-keys.md)")
}
