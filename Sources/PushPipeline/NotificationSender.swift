import APNSClient

/// What the pipeline needs from an APNs connection: send one notification, get its result.
/// The one seam between the worker and the client, so a batch API can replace it later.
public protocol NotificationSender: Sendable {
    func send(_ notification: APNSNotification) async -> APNSResult
    func shutdown() async
    /// The connection's counters, when it keeps them (for metrics).
    var statistics: APNSClientStatistics? { get }
}

extension NotificationSender {
    public var statistics: APNSClientStatistics? { nil }
}

/// `APNSClient.send` as a `NotificationSender`.
struct APNSClientSender: NotificationSender {
    let client: APNSClient

    func send(_ notification: APNSNotification) async -> APNSResult {
        await client.send(notification)
    }

    func shutdown() async {
        await client.shutdown()
    }

    var statistics: APNSClientStatistics? { client.statistics }
}
