import Foundation

/// The phone's own client of the relay (`/client/v1`): a client key, which may ship in the
/// app because it can only register a device, and the device secret the registration
/// answers, which acts for that one device. No master secret, so no backend proxy.
///
/// Each call is one request and never retried here: `ClientKeyRegistration` (under
/// `PushRegistrar`) and `PushRelayReceipts` decide what to repeat and when.
public struct PushRelayDeviceClient: Sendable {
    private let http: RelayHTTP
    private let clientKey: String

    /// - Parameters:
    ///   - baseURL: the relay, e.g. `https://push.example.com`.
    ///   - clientKey: `ck_…`, issued by the relay's admin (docs/client-keys.md).
    public init(baseURL: URL, clientKey: String, transport: any HTTPTransport = URLSessionTransport()) {
        self.http = RelayHTTP(baseURL: baseURL, transport: transport)
        self.clientKey = clientKey
    }

    public var baseURL: URL { http.baseURL }

    /// Registers the APNs token (lowercase hex). The same token always gets the same
    /// registration id; each registration issues a new device secret and ends the last one.
    public func register(token: String, environment: APNsEnvironment) async throws(PushRelayError) -> DeviceCredentials {
        struct Body: Encodable {
            var platform = "ios"
            var token: String
            var environment: String
        }
        struct Reply: Decodable {
            var registration_id: String
            var device_secret: String
        }
        let request = try http.request("POST", "/client/v1/devices", body: Body(token: token, environment: environment.rawValue),
                                       authorization: "Bearer \(clientKey)")
        let reply: Reply = try await http.send(request)
        return DeviceCredentials(registrationID: reply.registration_id, deviceSecret: reply.device_secret, token: token, environment: environment)
    }

    /// Moves the registration to a new token or environment; the registration id (and what
    /// the app's backend attached to it: alias, tags) stays.
    public func update(_ credentials: DeviceCredentials, token: String?, environment: APNsEnvironment?) async throws(PushRelayError) {
        struct Body: Encodable {
            var token: String?
            var environment: String?
        }
        let request = try http.request("PATCH", devicePath(credentials), body: Body(token: token, environment: environment?.rawValue),
                                       authorization: "Bearer \(credentials.deviceSecret)")
        let _: RelayHTTP.Empty = try await http.send(request)
    }

    /// Sets the device's own alias or tags: only when its app lets devices do so
    /// (`client_may_set_alias`, off by default: else 400, code 7002). Mobile and badge stay the
    /// backend's.
    public func setLabels(_ credentials: DeviceCredentials, _ labels: DeviceUpdate) async throws(PushRelayError) {
        let request = try http.request("PATCH", devicePath(credentials), body: labels, authorization: "Bearer \(credentials.deviceSecret)")
        let _: RelayHTTP.Empty = try await http.send(request)
    }

    /// Unregisters the device (the user signed out or turned notifications off).
    public func unregister(_ credentials: DeviceCredentials) async throws(PushRelayError) {
        let request = try http.request("DELETE", devicePath(credentials), authorization: "Bearer \(credentials.deviceSecret)")
        let _: RelayHTTP.Empty = try await http.send(request)
    }

    /// Reports 1 to 100 receipts of this device.
    public func sendReceipts(_ receipts: [Receipt], as credentials: DeviceCredentials) async throws(PushRelayError) -> ReceiptsRecorded {
        struct Body: Encodable {
            var registration_id: String
            var receipts: [Receipt]
        }
        let request = try http.request("POST", "/client/v1/receipts", body: Body(registration_id: credentials.registrationID, receipts: receipts),
                                       authorization: "Bearer \(credentials.deviceSecret)")
        return try await http.send(request)
    }

    /// Sends one token report with the device secret (docs/pushrelaykit.md, "Live Activities
    /// and other tokens"); the Live Activity routes name the device in the body:
    /// - a start token: `POST /client/v1/live-activities/start-tokens` `{registration_id, attributes_type, token}`;
    /// - an activity's token: `POST /client/v1/live-activities/{activity_id}/tokens` `{registration_id, token}`;
    /// - an activity's state: `PUT /client/v1/live-activities/{activity_id}/state` `{registration_id, state}`;
    /// - a token of another kind: `PATCH /client/v1/devices/{registration_id}` `{token_type, token}`.
    public func report(_ report: TokenReport, as credentials: DeviceCredentials) async throws(PushRelayError) {
        struct Body: Encodable {
            var registration_id: String?
            var attributes_type: String?
            var token_type: String?
            var token: String?
            var state: String?
        }
        let rid = credentials.registrationID
        let (method, path, body): (String, String, Body) = switch report {
        case .startToken(let type, let token):
            ("POST", "/client/v1/live-activities/start-tokens", Body(registration_id: rid, attributes_type: type, token: token))
        case .activityToken(let id, let token):
            ("POST", "/client/v1/live-activities/\(RelayHTTP.segment(id))/tokens", Body(registration_id: rid, token: token))
        case .activityState(let id, let state):
            ("PUT", "/client/v1/live-activities/\(RelayHTTP.segment(id))/state", Body(registration_id: rid, state: state.rawValue))
        case .deviceToken(let type, let token):
            ("PATCH", devicePath(credentials), Body(token_type: type.rawValue, token: token))
        }
        let request = try http.request(method, path, body: body, authorization: "Bearer \(credentials.deviceSecret)")
        let _: RelayHTTP.Empty = try await http.send(request)
    }

    private func devicePath(_ credentials: DeviceCredentials) -> String {
        "/client/v1/devices/\(RelayHTTP.segment(credentials.registrationID))"
    }
}
