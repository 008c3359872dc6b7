import APNSClient
import Foundation
import HTTPServer
import RelayCore
import RelayStore

/// `/v3/live-activities/channels`: an app's Live Activity broadcast channels (iOS 18),
/// created and deleted at APNs' channel-management service with the app's token (.p8)
/// credential, sent to with one broadcast each, and mirrored in `live_activity_channels`: a row exists only for a channel APNs
/// created, and every look-up names the app, so one app never sees or uses another's
/// channel (it is answered 404 like one that does not exist).
struct LiveActivityChannelRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let channels = LiveActivityChannelRepository(pool: context.dependencies.pool)
        let gateway = context.channelGateway
        let credentials = context.credentials

        router.add("POST", "/v3/live-activities/channels", context.appHandler { request, _, app in
            let creation = try ChannelCreation.parse(request.body)
            let credential = try await ChannelCredential.load(appKey: app.appKey, environment: creation.environment, from: credentials)
            let result = try await gateway.perform(APNSChannelRequest(bundleID: credential.bundleID, operation: .create(creation.storagePolicy)),
                                                   appKey: app.appKey, environment: creation.environment, credential: credential)
            guard case let .created(channelID) = result else { throw Self.refusal(result, channelID: nil) }
            do {
                let stored = try await channels.insert(appID: app.id, channelID: channelID, environment: creation.environment,
                                                       storagePolicy: creation.storagePolicy.rawValue)
                return try jsonResponse(200, encoding: stored)
            } catch {
                // APNs made a channel the relay could not record: delete it again rather than
                // leave one no route can reach (best effort; the error is answered either way).
                _ = try? await gateway.perform(APNSChannelRequest(bundleID: credential.bundleID, operation: .delete(channelID: channelID)),
                                               appKey: app.appKey, environment: creation.environment, credential: credential)
                throw error
            }
        })

        router.add("GET", "/v3/live-activities/channels", context.appHandler { _, _, app in
            try jsonResponse(200, encoding: ["channels": try await channels.list(appID: app.id)])
        })

        router.add("GET", "/v3/live-activities/channels/{channel_id}", context.appHandler { _, parameters, app in
            let channelID = try ChannelPathID.channelID(parameters["channel_id"] ?? "")
            guard let channel = try await channels.find(appID: app.id, channelID: channelID) else { throw ChannelRefusal.unknownChannel(channelID) }
            return try jsonResponse(200, encoding: channel)
        })

        router.add("DELETE", "/v3/live-activities/channels/{channel_id}", context.appHandler { _, parameters, app in
            let channelID = try ChannelPathID.channelID(parameters["channel_id"] ?? "")
            guard let channel = try await channels.find(appID: app.id, channelID: channelID) else { throw ChannelRefusal.unknownChannel(channelID) }
            let credential = try await ChannelCredential.load(appKey: app.appKey, environment: channel.environment, from: credentials)
            let result = try await gateway.perform(APNSChannelRequest(bundleID: credential.bundleID, operation: .delete(channelID: channelID)),
                                                   appKey: app.appKey, environment: channel.environment, credential: credential)
            switch result {
            case .deleted, .rejected(_, .channelNotRegistered):
                // Gone at APNs (a channel APNs no longer knows is gone too): gone here.
                _ = try await channels.delete(appID: app.id, channelID: channelID)
                return try jsonResponse(200, encoding: DeletedChannel(channelID: channelID))
            default:
                throw Self.refusal(result, channelID: channelID)
            }
        })

        registerSend(in: &router, channels: channels)
    }

    /// The send: one update or end to every activity subscribed to the channel. Not stored:
    /// the API sends it while the caller waits and answers what APNs answered (docs/live-activity-channels.md).
    private func registerSend(in router: inout Router, channels: LiveActivityChannelRepository) {
        let gateway = context.channelGateway
        let credentials = context.credentials
        let clock = context.dependencies.clock
        router.add("POST", "/v3/live-activities/channels/{channel_id}", context.appHandler { request, parameters, app in
            let channelID = try ChannelPathID.channelID(parameters["channel_id"] ?? "")
            let send = try ChannelBroadcast.parse(request.body)
            guard let channel = try await channels.find(appID: app.id, channelID: channelID) else { throw ChannelRefusal.unknownChannel(channelID) }
            let credential = try await ChannelCredential.load(appKey: app.appKey, environment: channel.environment, from: credentials)
            let broadcast = try send.broadcast(to: channel, bundleID: credential.bundleID, now: Int(clock().timeIntervalSince1970))
            switch try await gateway.send(broadcast, appKey: app.appKey, environment: channel.environment, credential: credential) {
            case .accepted:
                return try jsonResponse(200, encoding: ChannelBroadcast.Answer(channelID: channelID, apnsRequestID: broadcast.requestID.uuidString.lowercased()))
            case let .rejected(status, reason, _):
                throw ChannelRefusal.error(status: status, reason: reason, channelID: channelID)
            case let .failed(failure):
                throw ChannelRefusal.error(failure)
            }
        })
    }

    static func refusal(_ result: APNSChannelResult, channelID: String?) -> JPushError {
        switch result {
        case let .rejected(status, reason): ChannelRefusal.error(status: status, reason: reason, channelID: channelID)
        case let .failed(failure): ChannelRefusal.error(failure)
        case .created, .channel, .deleted, .channels: .internalError("APNs answered the channel request unexpectedly")
        }
    }

    private struct DeletedChannel: Encodable {
        var channelID: String
        var deleted = true

        enum CodingKeys: String, CodingKey { case channelID = "channel_id", deleted }
    }
}
