import PostgresStore

/// `POST /v3/devices` registrations through a group commit: concurrent registrations share
/// a transaction and, a round at a time, one statement (`RegistrationBatch`), each answered
/// with its own registration id, or its own error, once that transaction committed. An idle
/// registration runs alone, as `DeviceRepository.register`, without waiting for company.
public final class DeviceRegistrar: Sendable {
    private let registrations: GroupCommit<RegistrationBatch.Entry, String>

    /// - Parameter maxInFlight: transactions of registrations open at once; a registration
    ///   arriving while that many are open waits for the next, with every other that does.
    public init(repository: DeviceRepository, maxInFlight: Int) {
        registrations = GroupCommit(pool: repository.pool, maxInFlight: maxInFlight, maxBatch: 256,
                                    performAll: { entries, connection in
                                        try RegistrationBatch.register(entries, on: connection).map { .success($0) }
                                    },
                                    single: { entry in try await repository.register(appID: entry.appID, entry.registration) })
    }

    /// Registers a token, or refreshes the device that has it, as `DeviceRepository.register`.
    ///
    /// - Returns: the device's registration id.
    public func register(appID: Int64, _ registration: DeviceRegistration) async throws -> String {
        try await registrations.write(RegistrationBatch.Entry(appID: appID, registration: registration))
    }

    /// Registrations written as one caller's batch (as concurrent callers' would be), each
    /// with its own answer, in order: how the tests make a batch at will.
    func registerAll(_ entries: [RegistrationBatch.Entry]) async -> [Result<String, any Error>] {
        await registrations.write(entries)
    }
}
