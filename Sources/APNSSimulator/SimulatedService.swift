/// What a simulator answers complete requests with: APNs' rules (`APNSRequestHandler`), or
/// another push service's on the same TLS and HTTP/2 server (the FCM simulator's). One per
/// listener, used on its loop only.
package protocol SimulatedService: Sendable {
    /// Decides the answer to `request`.
    ///
    /// - Parameters:
    ///   - nowMilliseconds: milliseconds since the epoch.
    ///   - tokenCache: the connection's last verified provider token (APNs raises the stream
    ///     limit once one is).
    mutating func answer(_ request: APNSRequest, nowMilliseconds: Int64, tokenCache: inout ProviderTokenCache) -> SimulatorDecision
    /// The control endpoint changed the failure rates.
    mutating func setRates(_ rates: FailureRates)
}

/// One request's answer, and what the recorder makes of it.
package struct SimulatorDecision: Sendable {
    package var response: SimulatorResponse
    /// The device token of a message accepted (recorded as a delivery).
    package var acceptedToken: String?
    /// Why it was refused (counted by reason in `/stats`); nil when accepted.
    package var rejectedReason: String?

    package init(response: SimulatorResponse, acceptedToken: String? = nil, rejectedReason: String? = nil) {
        self.response = response
        self.acceptedToken = acceptedToken
        self.rejectedReason = rejectedReason
    }
}

/// The status, JSON body and `retry-after` sent back.
package struct SimulatorResponse: Sendable, Equatable {
    package var status: Int
    package var body: [UInt8]
    package var retryAfter: Int?
    /// `apns-channel-id` (a channel APNs created).
    package var channelID: String?

    package init(status: Int, body: [UInt8] = [], retryAfter: Int? = nil, channelID: String? = nil) {
        self.status = status
        self.body = body
        self.retryAfter = retryAfter
        self.channelID = channelID
    }
}
