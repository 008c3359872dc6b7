import APNSClient

/// Everything APNs decides about one complete request, in APNs' order: route, provider
/// token, headers and payload, the token's kind against the push type, then the scripted behaviours. Pure apart from the ECDSA
/// check inside the verifier; one per event loop, since the behaviours' RNG is mutable.
public struct APNSRequestHandler: Sendable {
    public let verifier: ProviderTokenVerifier
    public var behaviour: ScriptedBehaviour
    public let tokenKinds: TokenKinds
    /// Broadcast channels: `/1/apps/…` and `/4/broadcasts/apps/…` (`ChannelService`).
    let channels: ChannelService

    public init(verifier: ProviderTokenVerifier, behaviour: ScriptedBehaviour, tokenKinds: TokenKinds = TokenKinds(),
                channels: ChannelRegistry = ChannelRegistry()) {
        self.verifier = verifier
        self.behaviour = behaviour
        self.tokenKinds = tokenKinds
        self.channels = ChannelService(registry: channels)
    }

    /// What to answer, and the device token when the notification was accepted.
    public struct Decision: Sendable, Equatable {
        public var response: APNSResponse
        /// The device token, or for a broadcast the channel id.
        public var acceptedToken: String?
    }

    /// - Parameters:
    ///   - request: the complete request.
    ///   - nowMilliseconds: milliseconds since the epoch.
    ///   - tokenCache: the connection's last verified provider token.
    public mutating func handle(
        _ request: APNSRequest, nowMilliseconds: Int64, tokenCache: inout ProviderTokenCache
    ) -> Decision {
        if let route = ChannelRoute(path: request.path) {
            if let reason = verifier.check(authorization: request.authorization, now: nowMilliseconds / 1000, cache: &tokenCache) {
                return Decision(response: APNSResponse(reason: reason))
            }
            let (response, channel) = channels.answer(route, request)
            return Decision(response: response, acceptedToken: channel)
        }
        let token: String
        switch APNSRequestValidator.deviceToken(method: request.method, path: request.path) {
        case .failure(let reason): return Decision(response: APNSResponse(reason: reason))
        case .success(let value): token = value
        }
        if let reason = verifier.check(
            authorization: request.authorization, now: nowMilliseconds / 1000, cache: &tokenCache
        ) {
            return Decision(response: APNSResponse(reason: reason))
        }
        if let reason = APNSRequestValidator.headersAndPayload(request) {
            return Decision(response: APNSResponse(reason: reason))
        }
        if let reason = tokenKinds.reason(token: token, pushType: request.pushType) {
            return Decision(response: APNSResponse(reason: reason))
        }
        if let scripted = behaviour.response(forToken: token, nowMilliseconds: nowMilliseconds) {
            return Decision(response: scripted)
        }
        return Decision(response: .accepted, acceptedToken: token)
    }
}

extension APNSRequestHandler: SimulatedService {
    package mutating func answer(_ request: APNSRequest, nowMilliseconds: Int64, tokenCache: inout ProviderTokenCache) -> SimulatorDecision {
        let decision = handle(request, nowMilliseconds: nowMilliseconds, tokenCache: &tokenCache)
        return SimulatorDecision(response: SimulatorResponse(
            status: decision.response.status, body: decision.response.body, channelID: decision.response.channelID),
                                 acceptedToken: decision.acceptedToken, rejectedReason: decision.response.reason?.description)
    }

    package mutating func setRates(_ rates: FailureRates) {
        behaviour.rate429 = rates.rate429
        behaviour.rate500 = rates.rate500
        behaviour.rate503 = rates.rate503
    }
}
