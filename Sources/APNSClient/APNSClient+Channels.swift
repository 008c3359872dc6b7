import Foundation

/// Broadcast channels on the client (Apple, iOS 18): a client made for the channel-management
/// endpoint (`api-manage-broadcast[.sandbox].push.apple.com`, ports 2196/2195) performs
/// channel requests; one made for the APNs endpoint sends broadcasts. Both ride the same
/// pools, provider token and bounds as notifications, in the urgent lane (an API caller
/// waits for each).
extension APNSClient {
    /// Creates, reads, lists or deletes a channel. Never throws.
    public func perform(_ request: APNSChannelRequest) async -> APNSChannelResult {
        if let problem = request.validate() { return .failed(.invalid(problem)) }
        let answers = await send(messages: [request], urgent: true)
        return APNSChannelResult(operation: request.operation, answer: answers[0])
    }

    /// Sends one message to a channel's subscribers. Never throws; a 200 reads as
    /// `.accepted` with the request id.
    public func send(_ broadcast: APNSBroadcast) async -> APNSResult {
        if let problem = broadcast.validate() { return .failed(.invalid(problem)) }
        let answers = await send(messages: [broadcast], urgent: true)
        return APNSResult(answers[0], sentID: broadcast.requestID)
    }
}
