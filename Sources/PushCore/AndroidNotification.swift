import RelayCore

/// `notification.android`: the fields PushRelay delivers through FCM (`FCMPayloadBuilder`).
///
/// JPush documents many more keys for its own SDK and the phone makers' channels
/// (`builder_id`, `style`, `big_text`, `inbox`, `large_icon`, `badge_add_num`, …); they are
/// accepted, kept with the message and named in its report as ignored
/// (`notification.android.<key>`), so a body JPush takes is taken here.
public struct AndroidNotification: Sendable, Equatable {
    /// What FCM shows: `notification.body`; `notification.alert` when absent.
    public var alert: String?
    public var title: String?
    /// `android.notification.channel_id` (Android 8+ notification channels).
    public var channelID: String?
    /// JPush's -2…2, as `android.notification.notification_priority` (PRIORITY_MIN…MAX);
    /// 1 and 2 also make the message `android.priority: HIGH`, below that `NORMAL`.
    public var priority: Int?
    /// No FCM field: delivered in `data` as `category` (unless the extras name one).
    public var category: String?
    /// `android.notification.sound`.
    public var sound: String?
    /// `big_pic_path` when it is an http(s) URL: `notification.image`. (JPush also takes
    /// ids of pictures uploaded to its own media store, which FCM cannot show.)
    public var image: String?
    /// `intent.url`: `android.notification.click_action`.
    public var clickAction: String?
    /// `data`, every value as a string (FCM's rule).
    public var extras: [String: JSONValue]?

    /// The keys this relay delivers; the others JPush documents are accepted and ignored.
    static let delivered: Set<String> = ["alert", "title", "channel_id", "priority", "category", "sound", "big_pic_path", "intent", "extras"]

    public init(alert: String? = nil, title: String? = nil, channelID: String? = nil, priority: Int? = nil, category: String? = nil,
                sound: String? = nil, image: String? = nil, clickAction: String? = nil, extras: [String: JSONValue]? = nil) {
        self.alert = alert
        self.title = title
        self.channelID = channelID
        self.priority = priority
        self.category = category
        self.sound = sound
        self.image = image
        self.clickAction = clickAction
        self.extras = extras
    }

    /// - Parameter ignored: gets `notification.android.<key>` for each key present that is
    ///   not delivered, sorted.
    static func parse(_ reader: JSONObjectReader, ignored: inout [String]) throws(JPushError) -> AndroidNotification {
        ignored += CanonicalJSON.sorted(reader.fields.keys.filter { !delivered.contains($0) && reader.fields[$0] != .null })
            .map { reader.name($0) }
        var android = AndroidNotification()
        android.alert = try reader.optionalString("alert")
        android.title = try reader.optionalString("title")
        android.channelID = try reader.optionalString("channel_id")
        android.priority = try reader.optionalInt("priority", in: -2...2)
        android.category = try reader.optionalString("category")
        android.sound = try reader.optionalString("sound")
        if let path = try reader.optionalString("big_pic_path"), path.hasPrefix("https://") || path.hasPrefix("http://") {
            android.image = path
        }
        if let intent = try reader.optionalObject("intent") {
            android.clickAction = try intent.optionalString("url")
        }
        android.extras = try reader.optionalFreeObject("extras")
        return android
    }

    /// The keys of a stored `notification.android` block this relay does not deliver, as
    /// paths (for reports of stored messages).
    static func ignoredKeys(of block: [String: JSONValue]) -> [String] {
        block.keys.filter { !delivered.contains($0) && block[$0] != .null }.map { "notification.android.\($0)" }
    }
}
