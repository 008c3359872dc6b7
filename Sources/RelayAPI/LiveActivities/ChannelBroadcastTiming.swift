/// How long APNs may keep a broadcast for devices that are offline: nothing for a channel that
/// stores nothing (Apple: any other `apns-expiration` is rejected), else the push's
/// `time_to_live`, at most the 8 hours a channel keeps its most recent message.
enum ChannelBroadcastTiming {
    static let maxStorageSeconds = 8 * 3600

    /// `apns-expiration` in Unix seconds, or nil for 0 (delivered once, stored nowhere).
    static func expiration(storagePolicy: Int, timeToLive: Int, now: Int) -> Int? {
        guard storagePolicy == 1, timeToLive > 0 else { return nil }
        return now + min(timeToLive, maxStorageSeconds)
    }
}
