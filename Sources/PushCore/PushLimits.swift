/// The limits of a push request, in one place so errors, tests and docs agree.
public enum PushLimits {
    /// `audience.tag`, `tag_and`, `tag_not`: entries per list.
    public static let tagsPerList = 20
    /// `audience.alias`: entries.
    public static let aliases = 1000
    /// `audience.registration_id`: entries.
    public static let registrationIDs = 1000
    /// A tag or alias, in bytes of UTF-8 (the device registry applies the same rule).
    public static let labelBytes = 40
    /// A registration id as the audience names it. Ours are 32 hex digits; longer text
    /// cannot be one of ours, and the bound keeps a request's size in check.
    public static let registrationIDBytes = 64
    /// `options.time_to_live`: 10 days, in seconds.
    public static let timeToLive = 864_000
    public static let defaultTimeToLive = 86_400
    /// `options.apns_collapse_id` and any collapse id we send, in bytes (APNs' limit).
    public static let collapseIDBytes = 64
    /// `options.big_push_duration`, in minutes.
    public static let bigPushDuration = 1400
    /// `cid`, in bytes. JPush's own cids (`{appkey}-{uuid}`) are 61.
    public static let cidBytes = 128
    /// The largest badge we set or store (the device registry's bound too); "+N" results
    /// are clamped to 0...maxBadge, which also bounds the badge's digits in a payload.
    public static let maxBadge = 1_000_000
    /// Entries of one `pushlist` (`/v3/push/batch/…/single`).
    public static let batchEntries = 1000
}
