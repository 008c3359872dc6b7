import Foundation

/// A typed async client for PushRelay's JPush v3 REST API, for app backends.
///
/// Retries only what is safe to repeat: GETs, pushes (each carries a cid, generated when
/// absent, that the relay answers once), and device registration (idempotent on the
/// token). Only transient failures are retried (no answer, 429, 5xx), with backoff.
public struct PushRelayClient: Sendable {
    public var baseURL: URL { http.baseURL }
    public var appKey: String
    private let authorization: String
    /// Attempts in all for a request that may be retried (1 = never retry).
    public var maxAttempts: Int
    public var backoff: Backoff
    private let http: RelayHTTP
    private let sleeper: any Sleeper
    private let random: @Sendable () -> Double

    /// - Parameters:
    ///   - baseURL: the relay, e.g. `https://push.example.com` (paths `/v3/…` are appended).
    ///   - appKey, masterSecret: the app's credentials; keep the secret on your servers.
    public init(baseURL: URL, appKey: String, masterSecret: String, maxAttempts: Int = 3, backoff: Backoff = Backoff(),
                transport: any HTTPTransport = URLSessionTransport(), sleeper: any Sleeper = TaskSleeper(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.http = RelayHTTP(baseURL: baseURL, transport: transport)
        self.appKey = appKey
        self.authorization = "Basic " + Data("\(appKey):\(masterSecret)".utf8).base64EncodedString()
        self.maxAttempts = max(1, maxAttempts)
        self.backoff = backoff
        self.sleeper = sleeper
        self.random = random
    }

    /// A fresh idempotency key in the relay's own `{appkey}-{uuid}` form.
    public func makeCID() -> String { "\(appKey)-\(UUID().uuidString.lowercased())" }

    // MARK: Push

    /// Sends a push. A push without a cid gets one, kept across retries.
    public func push(_ push: Push) async throws(PushRelayError) -> PushResult {
        var push = push
        if push.cid == nil { push.cid = makeCID() }
        return try await call("POST", "/v3/push", body: push, retry: true)
    }

    /// Validates a push fully without sending it.
    public func validate(_ push: Push) async throws(PushRelayError) -> PushResult {
        try await call("POST", "/v3/push/validate", body: push, retry: true)
    }

    /// `count` cids from the relay (`type`: `push` or `schedule`).
    public func cids(count: Int = 1, type: String = "push") async throws(PushRelayError) -> [String] {
        struct Reply: Decodable { var cidlist: [String] }
        let reply: Reply = try await call("GET", "/v3/push/cid", query: ["count": String(count), "type": type], retry: true)
        return reply.cidlist
    }

    /// Withdraws a push: what has not been sent yet is not sent.
    public func withdraw(msgID: String) async throws(PushRelayError) {
        let _: Empty = try await call("DELETE", "/v3/push/\(segment(msgID))")
    }

    // MARK: Devices

    /// Registers (or refreshes) an APNs token; returns its registration id.
    ///
    /// - Parameters:
    ///   - token: lowercase hex (`DeviceToken.hex`).
    public func registerDevice(token: String, environment: APNsEnvironment, alias: String? = nil,
                               tags: [String] = []) async throws(PushRelayError) -> String {
        struct Body: Encodable {
            var platform = "ios"
            var token: String
            var environment: String
            var alias: String?
            var tags: [String]?
        }
        struct Reply: Decodable { var registration_id: String }
        let body = Body(token: token, environment: environment.rawValue, alias: alias, tags: tags.isEmpty ? nil : tags)
        let reply: Reply = try await call("POST", "/v3/devices", body: body, retry: true)
        return reply.registration_id
    }

    public func device(_ registrationID: String) async throws(PushRelayError) -> DeviceInfo {
        try await call("GET", "/v3/devices/\(segment(registrationID))", retry: true)
    }

    public func updateDevice(_ registrationID: String, _ update: DeviceUpdate) async throws(PushRelayError) {
        let _: Empty = try await call("POST", "/v3/devices/\(segment(registrationID))", body: update)
    }

    public func deviceStatus(_ registrationIDs: [String]) async throws(PushRelayError) -> [String: DeviceOnlineStatus] {
        try await call("POST", "/v3/devices/status", body: ["registration_ids": registrationIDs])
    }

    // MARK: Tags and aliases

    public func tags() async throws(PushRelayError) -> [String] {
        struct Reply: Decodable { var tags: [String] }
        let reply: Reply = try await call("GET", "/v3/tags", retry: true)
        return reply.tags
    }

    /// Whether the device carries the tag.
    public func tag(_ tag: String, contains registrationID: String) async throws(PushRelayError) -> Bool {
        struct Reply: Decodable { var result: Bool }
        let reply: Reply = try await call("GET", "/v3/tags/\(segment(tag))/registration_ids/\(segment(registrationID))", retry: true)
        return reply.result
    }

    public func updateTag(_ tag: String, add: [String] = [], remove: [String] = []) async throws(PushRelayError) {
        struct Change: Encodable {
            var add: [String]?
            var remove: [String]?
        }
        let body = ["registration_ids": Change(add: add.isEmpty ? nil : add, remove: remove.isEmpty ? nil : remove)]
        let _: Empty = try await call("POST", "/v3/tags/\(segment(tag))", body: body)
    }

    public func deleteTag(_ tag: String) async throws(PushRelayError) {
        let _: Empty = try await call("DELETE", "/v3/tags/\(segment(tag))")
    }

    /// The devices that carry the alias.
    public func alias(_ alias: String) async throws(PushRelayError) -> [String] {
        struct Reply: Decodable { var registration_ids: [String] }
        let reply: Reply = try await call("GET", "/v3/aliases/\(segment(alias))", retry: true)
        return reply.registration_ids
    }

    public func removeFromAlias(_ alias: String, registrationIDs: [String]) async throws(PushRelayError) {
        let _: Empty = try await call("POST", "/v3/aliases/\(segment(alias))", body: ["registration_ids": ["remove": registrationIDs]])
    }

    public func deleteAlias(_ alias: String) async throws(PushRelayError) {
        let _: Empty = try await call("DELETE", "/v3/aliases/\(segment(alias))")
    }

    // MARK: Reports

    /// Delivery counters of up to 100 messages.
    public func received(msgIDs: [String]) async throws(PushRelayError) -> [ReceivedReport] {
        try await call("GET", "/v3/received", query: ["msg_ids": msgIDs.joined(separator: ",")], retry: true)
    }

    /// `GET /v3/messages/detail`: the detailed counters, as the relay writes them.
    public func messageDetails(msgIDs: [String]) async throws(PushRelayError) -> JSONValue {
        try await call("GET", "/v3/messages/detail", query: ["msg_ids": msgIDs.joined(separator: ",")], retry: true)
    }

    /// What happened to one message on each of up to 1000 devices.
    public func deliveryStatus(msgID: String, registrationIDs: [String], date: String? = nil) async throws(PushRelayError) -> [String: DeliveryStatus] {
        struct Body: Encodable {
            var msg_id: String
            var registration_ids: [String]
            var date: String?
        }
        struct Entry: Decodable { var status: DeliveryStatus }
        let reply: [String: Entry] = try await call("POST", "/v3/status/message", body: Body(msg_id: msgID, registration_ids: registrationIDs, date: date))
        return reply.mapValues(\.status)
    }

    // MARK: Schedules

    public func createSchedule(_ schedule: Schedule) async throws(PushRelayError) -> ScheduleCreated {
        var schedule = schedule
        // A cid makes creation safe to retry, like a push.
        if schedule.cid == nil { schedule.cid = makeCID() }
        return try await call("POST", "/v3/schedules", body: schedule, retry: true)
    }

    public func schedule(_ id: String) async throws(PushRelayError) -> StoredSchedule {
        try await call("GET", "/v3/schedules/\(segment(id))", retry: true)
    }

    public func schedules(page: Int = 1) async throws(PushRelayError) -> SchedulePage {
        try await call("GET", "/v3/schedules", query: ["page": String(page)], retry: true)
    }

    /// Replaces the schedule's sections (name, enabled, trigger, push).
    public func updateSchedule(_ id: String, _ schedule: Schedule) async throws(PushRelayError) -> StoredSchedule {
        var schedule = schedule
        schedule.cid = nil
        return try await call("PUT", "/v3/schedules/\(segment(id))", body: schedule)
    }

    public func deleteSchedule(_ id: String) async throws(PushRelayError) {
        let _: Empty = try await call("DELETE", "/v3/schedules/\(segment(id))")
    }

    /// The msg_ids of the pushes the schedule has sent.
    public func scheduleMsgIDs(_ id: String) async throws(PushRelayError) -> [String] {
        struct Reply: Decodable { var msgids: [String] }
        let reply: Reply = try await call("GET", "/v3/schedules/\(segment(id))/msg_ids", retry: true)
        return reply.msgids
    }

    // MARK: Plumbing

    private typealias Empty = RelayHTTP.Empty

    private func segment(_ value: String) -> String { RelayHTTP.segment(value) }

    private func call<Reply: Decodable>(_ method: String, _ path: String, query: [String: String] = [:],
                                        retry: Bool = false) async throws(PushRelayError) -> Reply {
        try await call(method, path, query: query, body: Optional<[String: String]>.none, retry: retry)
    }

    /// One request, retried with backoff while the failure is transient and `retry` allows it.
    private func call<Reply: Decodable, Body: Encodable>(_ method: String, _ path: String, query: [String: String] = [:],
                                                         body: Body?, retry: Bool = false) async throws(PushRelayError) -> Reply {
        let request = try http.request(method, path, query: query, body: body, authorization: authorization)
        var attempt = 1
        while true {
            do {
                return try await http.send(request)
            } catch {
                guard retry, error.isTransient, attempt < maxAttempts else { throw error }
                do {
                    try await sleeper.sleep(for: backoff.delay(attempt: attempt, random: random()))
                } catch {
                    throw PushRelayError.transport("cancelled")
                }
                attempt += 1
            }
        }
    }
}
