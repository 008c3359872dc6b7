import APNSClient
import RelayCore

/// APNs' broadcast side as the simulator answers it, after the provider token passed:
/// channel management (create, read, delete, list) and broadcasts to a channel, with the
/// reasons Apple documents ("Handling error responses from Apple Push Notification service").
struct ChannelService: Sendable {
    let registry: ChannelRegistry

    /// The answer, and the channel a broadcast was accepted for (recorded as a delivery under
    /// the channel id).
    func answer(_ route: ChannelRoute, _ request: APNSRequest) -> (response: APNSResponse, acceptedChannel: String?) {
        guard route.allows(request.method) else { return (APNSResponse(reason: .methodNotAllowed), nil) }
        if request.hasDuplicateHeader { return (APNSResponse(reason: .duplicateHeaders), nil) }
        let bundleID = route.bundleID
        if APNSRequestValidator.topicSuffixes.values.contains(where: bundleID.hasSuffix) {
            return (APNSResponse(reason: .topicDisallowed), nil)
        }
        switch (route, request.method) {
        case (.channels, "POST"):
            let policy: APNSMessageStoragePolicy
            switch Self.storagePolicy(request.body) {
            case let .failure(reason): return (APNSResponse(reason: reason), nil)
            case let .success(value): policy = value
            }
            guard let id = registry.create(bundleID: bundleID, policy: policy) else {
                return (APNSResponse(reason: .cannotCreateChannelConfig), nil)
            }
            return (APNSResponse(successStatus: 201, channelID: id), nil)
        case (.allChannels, _):
            let ids = registry.list(bundleID: bundleID).map { "\"\($0)\"" }.joined(separator: ",")
            return (APNSResponse(successStatus: 200, body: Array("{\"channels\":[\(ids)]}".utf8)), nil)
        default:
            break
        }
        let channelID: String
        let policy: APNSMessageStoragePolicy
        switch channel(request, bundleID: bundleID) {
        case let .failure(reason): return (APNSResponse(reason: reason), nil)
        case let .success(found): (channelID, policy) = found
        }
        switch (route, request.method) {
        case (.channels, "GET"):
            let body = "{\"message-storage-policy\":\(policy.rawValue),\"push-type\":\"LiveActivity\"}"
            return (APNSResponse(successStatus: 200, body: Array(body.utf8)), nil)
        case (.channels, _):
            _ = registry.delete(bundleID: bundleID, channelID: channelID)
            return (APNSResponse(successStatus: 204), nil)
        default:
            if let reason = Self.broadcastProblem(request, policy: policy) { return (APNSResponse(reason: reason), nil) }
            return (.accepted, channelID)
        }
    }

    /// The channel `apns-channel-id` names, or MissingChannelId, BadChannelId, ChannelNotRegistered.
    private func channel(_ request: APNSRequest, bundleID: String) -> Result<(String, APNSMessageStoragePolicy), APNSReason> {
        guard let channelID = request.channelID, !channelID.isEmpty else { return .failure(.missingChannelId) }
        guard APNSChannelRequest.channelIDProblem(channelID) == nil else { return .failure(.badChannelId) }
        guard let policy = registry.policy(bundleID: bundleID, channelID: channelID) else { return .failure(.channelNotRegistered) }
        return .success((channelID, policy))
    }

    /// A create's body: `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}` and
    /// nothing else (BadRequestPayload when it is not JSON, BadRequestParams when it is not this).
    static func storagePolicy(_ body: [UInt8]) -> Result<APNSMessageStoragePolicy, APNSReason> {
        guard case let .object(members)? = try? JSONValue.parse(body) else { return .failure(.badRequestPayload) }
        guard Set(members.keys).isSubset(of: ["message-storage-policy", "push-type"]),
              case let .number(number)? = members["message-storage-policy"],
              let policy = number.int64.flatMap({ APNSMessageStoragePolicy(rawValue: Int($0)) }),
              members["push-type"] == .string("LiveActivity") else {
            return .failure(.badRequestParams)
        }
        return .success(policy)
    }

    /// What a broadcast must be, in this order: push type `liveactivity` (any case; Apple's
    /// table spells it `Liveactivity`), a valid priority, an `apns-expiration` (0 only for a
    /// channel that stores nothing), a body of at most 5120 bytes that is a Live Activity
    /// payload (`LiveActivityPayloadCheck`) of an update or end: a channel starts nothing.
    static func broadcastProblem(_ request: APNSRequest, policy: APNSMessageStoragePolicy) -> APNSReason? {
        guard let pushType = request.pushType else { return .missingPushType }
        guard pushType.lowercased() == "liveactivity" else { return .invalidPushType }
        guard ["10", "5", "1"].contains(request.priority ?? "10") else { return .badPriority }
        guard let expiration = request.expiration, APNSRequestValidator.isUnsignedInteger(expiration) else {
            return .badExpirationDate
        }
        if policy == .noMessageStored, expiration != "0" { return .badExpirationDate }
        if let requestID = request.requestID, !APNSRequestValidator.isUUID(requestID) { return .badMessageId }
        if request.bodyLength == 0 { return .payloadEmpty }
        if request.bodyLength > APNSBroadcast.maxPayloadSize { return .payloadTooLarge }
        if let reason = LiveActivityPayloadCheck.reason(request.body) { return reason }
        guard case let .object(top)? = try? JSONValue.parse(request.body), case let .object(aps)? = top["aps"],
              aps["event"] != .string("start") else { return LiveActivityPayloadCheck.invalid }
        return nil
    }
}
