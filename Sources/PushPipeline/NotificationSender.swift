import APNSClient

/// What the pipeline needs from an APNs connection: send a round's notifications, get each
/// one's result in the same order; `urgent` ones (the targeted lane's) go out before the
/// others waiting. The one seam between the worker and the client.
public protocol NotificationSender: Sendable {
    func send(_ notifications: [APNSNotification], urgent: Bool) async -> [APNSResult]
    func shutdown() async
    /// The connection's counters, when it keeps them (for metrics).
    var statistics: APNSClientStatistics? { get }
}

extension NotificationSender {
    public var statistics: APNSClientStatistics? { nil }
}

/// `APNSClient`'s batch `send` as a `NotificationSender`: a chunk reaches the client's loop
/// threads in a few hand-overs instead of one task and one hop per device.
struct APNSClientSender: NotificationSender {
    let client: APNSClient

    func send(_ notifications: [APNSNotification], urgent: Bool) async -> [APNSResult] {
        await client.send(notifications, urgent: urgent)
    }

    func shutdown() async {
        await client.shutdown()
    }

    var statistics: APNSClientStatistics? { client.statistics }
}
