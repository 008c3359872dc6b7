import Foundation

/// The device side of registration: turns the token APNs hands the app into a
/// registration with the relay, registers again when the token changes, retries with
/// backoff while offline, and keeps alias, tags and the badge in sync.
///
/// Call `didReceiveToken(_:)` from `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`
/// on every launch (only after the user answered the permission prompt); it registers
/// only when the token or environment differs from the stored record.
public actor PushRegistrar {
    public enum State: Sendable, Equatable {
        case unregistered
        case registering(attempt: Int)
        /// Offline or the relay busy: the next attempt runs after `delay`.
        case waitingToRetry(attempt: Int, delay: Duration)
        case registered(registrationID: String)
        /// Refused for good (bad credentials, bad token): no retry until a new token.
        case failed(String)
    }

    public private(set) var state: State
    public let environment: APNsEnvironment
    public var registrationID: String? { record?.registrationID }

    private let service: any DeviceRegistrationService
    private let store: any RegistrationStore
    private let backoff: Backoff
    private let sleeper: any Sleeper
    private let random: @Sendable () -> Double
    private let setOSBadge: @Sendable (Int) async throws -> Void

    private var record: RegistrationRecord?
    /// What the app wants the relay to hold; sent with the registration or as updates.
    private var wantedAlias: String?
    private var wantedTags: Set<String>
    private var badgeResetPending = false
    /// Bumped by each new token, so an older registration loop stops.
    private var generation = 0
    private var retryTask: Task<Void, Never>?

    /// - Parameters:
    ///   - environment: `APNsEnvironment.current()` in an app.
    ///   - setOSBadge: sets the app icon's badge (`UNUserNotificationCenter.setBadgeCount`).
    ///   - sleeper, random: the clock and jitter of the retry backoff.
    public init(service: any DeviceRegistrationService, environment: APNsEnvironment,
                store: any RegistrationStore = InMemoryRegistrationStore(),
                backoff: Backoff = Backoff(initial: .seconds(2), maximum: .seconds(300)),
                sleeper: any Sleeper = TaskSleeper(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                setOSBadge: @escaping @Sendable (Int) async throws -> Void) {
        self.service = service
        self.environment = environment
        self.store = store
        self.backoff = backoff
        self.sleeper = sleeper
        self.random = random
        self.setOSBadge = setOSBadge
        let record = store.load()
        self.record = record
        self.wantedAlias = record?.alias
        self.wantedTags = record?.tags ?? []
        self.state = record.map { .registered(registrationID: $0.registrationID) } ?? .unregistered
    }

    // MARK: Token

    /// Takes the token APNs handed the app. Returns once the first attempt is over
    /// (registered, refused, or waiting to retry in the background).
    public func didReceiveToken(_ token: Data) async {
        let hex = DeviceToken(token).hex
        guard RegistrationRecord.needsRegistration(record, token: hex, environment: environment) else {
            if case .failed = state {} else if let record { state = .registered(registrationID: record.registrationID) }
            return
        }
        generation += 1
        retryTask?.cancel()
        retryTask = nil
        await attempt(token: hex, number: 1, generation: generation)
    }

    private func attempt(token: String, number: Int, generation: Int) async {
        state = .registering(attempt: number)
        let alias = wantedAlias
        let tags = wantedTags
        do {
            let id = try await service.register(token: token, environment: environment, alias: alias, tags: tags.sorted())
            guard generation == self.generation else { return }
            record = RegistrationRecord(token: token, environment: environment, registrationID: id, alias: alias, tags: tags)
            store.save(record)
            state = .registered(registrationID: id)
            // What changed while the registration was in flight.
            try? await syncIdentity()
            if badgeResetPending { try? await sendBadgeReset() }
        } catch {
            guard generation == self.generation else { return }
            guard Self.isTransient(error) else {
                state = .failed(String(describing: error))
                return
            }
            let delay = backoff.delay(attempt: number, random: random())
            state = .waitingToRetry(attempt: number + 1, delay: delay)
            retryTask = Task { [sleeper] in
                do { try await sleeper.sleep(for: delay) } catch { return }
                await self.retry(token: token, number: number + 1, generation: generation)
            }
        }
    }

    private func retry(token: String, number: Int, generation: Int) async {
        guard generation == self.generation else { return }
        await attempt(token: token, number: number, generation: generation)
    }

    /// Whether a failure may pass: anything but the relay's refusal of the request itself.
    static func isTransient(_ error: any Error) -> Bool {
        (error as? PushRelayError)?.isTransient ?? true
    }

    // MARK: Alias and tags

    /// Sets the device's alias (usually the signed-in user's id); nil removes it.
    public func setAlias(_ alias: String?) async throws {
        wantedAlias = alias
        try await syncIdentity()
    }

    /// Sets the device's tags to exactly `tags`.
    public func setTags(_ tags: Set<String>) async throws {
        wantedTags = tags
        try await syncIdentity()
    }

    /// Sends the difference between what the app wants and what the relay holds; before
    /// registration there is nothing to send (the registration carries them).
    private func syncIdentity() async throws {
        guard let current = record else { return }
        let alias = wantedAlias
        let tags = wantedTags
        var update = DeviceUpdate()
        if alias != current.alias { update.alias = alias ?? "" }
        update.addTags = tags.subtracting(current.tags).sorted()
        update.removeTags = current.tags.subtracting(tags).sorted()
        guard update != DeviceUpdate() else { return }
        try await service.update(registrationID: current.registrationID, update)
        // Only the record this update was for; a new registration in between carried its own.
        guard record?.registrationID == current.registrationID else { return }
        record?.alias = alias
        record?.tags = tags
        store.save(record)
    }

    // MARK: Badge

    /// Clears the badge on the app icon and in the relay's store, so the next `"+1"` push
    /// shows 1. Call it when the user has seen their notifications.
    public func resetBadge() async throws {
        try await setOSBadge(0)
        badgeResetPending = true
        guard record != nil else { return }
        try await sendBadgeReset()
    }

    private func sendBadgeReset() async throws {
        guard let id = record?.registrationID else { return }
        try await service.update(registrationID: id, DeviceUpdate(badge: 0))
        badgeResetPending = false
    }
}
