import HTTPServer
import RelayCore
import RelayStore

/// `/client/v1/live-activities`: a device (its own secret, its `registration_id` in the
/// body as for receipts) registers its push-to-start and update tokens and reports its
/// activities' states, as `/v3/live-activities` takes them with the master secret.
struct ClientLiveActivityRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let authenticator = ClientAuthenticator(keys: ClientKeyRepository(pool: context.dependencies.pool), gate: context.authenticationGate)
        let activities = LiveActivityRepository(pool: context.dependencies.pool)

        /// The change, once the device's secret is checked (before the rest of the body is read).
        @Sendable func apply(_ request: HTTPRequest, _ change: (JSONObjectReader) throws -> LiveActivityTokenChange) async throws -> HTTPResponse {
            let body = try JSONObjectReader(request.body)
            let device = try await authenticator.device(request, rid: try body.string("registration_id"))
            try await activities.apply(appID: device.appID, try change(body))
            return emptySuccess
        }

        router.add("POST", "/client/v1/live-activities/start-tokens", context.clientHandler { request, _ in
            try await apply(request) { try LiveActivityTokenChange.startToken($0) }
        })
        router.add("POST", "/client/v1/live-activities/{activity_id}/tokens", context.clientHandler { request, parameters in
            try await apply(request) { try LiveActivityTokenChange.activityToken($0, activityID: parameters["activity_id"] ?? "") }
        })
        router.add("PUT", "/client/v1/live-activities/{activity_id}/state", context.clientHandler { request, parameters in
            try await apply(request) { try LiveActivityTokenChange.state($0, activityID: parameters["activity_id"] ?? "") }
        })
    }
}
