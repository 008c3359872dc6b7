/// A record kept in memory: forgotten on exit. Tests use it, and apps that keep nothing.
public final class InMemoryRecordStore<Record: Sendable>: Sendable {
    private let record: Locked<Record?>

    public init(_ initial: Record? = nil) {
        record = Locked(initial)
    }

    public func load() -> Record? { record.withLock { $0 } }
    public func save(_ new: Record?) { record.withLock { $0 = new } }
}

extension InMemoryRecordStore: RegistrationStore where Record == RegistrationRecord {}
extension InMemoryRecordStore: DeviceCredentialStore where Record == DeviceCredentials {}

/// The registrar's record in memory.
public typealias InMemoryRegistrationStore = InMemoryRecordStore<RegistrationRecord>
/// The device's credentials in memory (the Keychain in an app: `KeychainCredentialStore`).
public typealias InMemoryCredentialStore = InMemoryRecordStore<DeviceCredentials>
