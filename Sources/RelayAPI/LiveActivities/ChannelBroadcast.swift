import APNSClient
import PushCore
import RelayCore
import RelayStore

/// A `POST /v3/live-activities/channels/{channel_id}` body made into the broadcast APNs takes:
/// the same body as an update or end of one activity (`LiveActivityPush.change`) without the
/// activity, whose subscribers are whatever activities joined the channel, and without a
/// `cid` (a channel send is not stored, so there is nothing to answer a repeat with).
struct ChannelBroadcast: Sendable, Equatable {
    var content: LiveActivityContent
    var priority: APNSPriority
    var timeToLive: Int

    /// Stands for the activity in the parse: the content names none, and the payload carries none.
    private static let noActivity = "broadcast"

    static func parse(_ body: [UInt8]) throws(JPushError) -> ChannelBroadcast {
        let reader = try JSONObjectReader(body)
        for key in ["activity_id", "cid"] where reader.has(key) {
            throw JPushError.illegalValue("\(key) is not taken by a channel send: it reaches every activity subscribed to the channel, and is not stored")
        }
        let push = try LiveActivityPush.change(body, activityID: noActivity)
        guard let content = push.request.liveActivity else { throw JPushError.missingParameter("content_state is required") }
        let priority = try LiveActivityPayloadBuilder.priority(content.event, asked: push.request.options.apnsPriority)
        return ChannelBroadcast(content: content, priority: APNSPriority(rawValue: priority) ?? .powerConsiderate,
                                timeToLive: push.request.options.timeToLive)
    }

    /// The request for `channel` of the app with `bundleID`, stamped `now` (Unix seconds: the
    /// `aps.timestamp` a device compares with the update it shows).
    func broadcast(to channel: LiveActivityChannel, bundleID: String, now: Int) throws(JPushError) -> APNSBroadcast {
        APNSBroadcast(bundleID: bundleID, channelID: channel.channelID, priority: priority,
                      expiration: ChannelBroadcastTiming.expiration(storagePolicy: channel.messageStoragePolicy, timeToLive: timeToLive, now: now),
                      payload: try LiveActivityPayloadBuilder.payload(content, timestamp: now, limit: APNSBroadcast.maxPayloadSize))
    }

    /// What the send answers: the channel and APNs' request id (for Apple's support).
    struct Answer: Encodable {
        var channelID: String
        var apnsRequestID: String

        enum CodingKeys: String, CodingKey { case channelID = "channel_id", apnsRequestID = "apns_request_id" }
    }
}
