import RelayCore

/// `options.third_party_channel`: options per phone maker's channel (`xiaomi`, `huawei`,
/// `honor`, `oppo`, `vivo`, `meizu`, `fcm`, …), which JPush's Android SDK delivers through.
/// This relay delivers Android through FCM only: of `fcm` it uses `channel_id`; the other
/// channels' options (and the rest of `fcm`'s: `distribution`, …) are accepted, kept with
/// the message and named in its report as ignored.
public struct ThirdPartyChannels: Sendable, Equatable {
    /// `third_party_channel.fcm.channel_id`: the notification channel on FCM deliveries,
    /// over `notification.android.channel_id`.
    public var fcmChannelID: String?

    public init(fcmChannelID: String? = nil) {
        self.fcmChannelID = fcmChannelID
    }

    static let fcm = "fcm"
    static let fcmDelivered: Set<String> = ["channel_id"]

    /// - Parameter ignored: gets `options.third_party_channel.<vendor>` per other channel and
    ///   `options.third_party_channel.fcm.<key>` per `fcm` key not used.
    static func parse(_ reader: JSONObjectReader, ignored: inout [String]) throws(JPushError) -> ThirdPartyChannels {
        var channels = ThirdPartyChannels()
        for vendor in CanonicalJSON.sorted(reader.fields.keys) where reader.fields[vendor] != .null {
            guard let options = try reader.optionalFreeObject(vendor) else { continue }
            guard vendor == fcm else {
                ignored.append(reader.name(vendor))
                continue
            }
            let fcmReader = try JSONObjectReader(.object(options), path: reader.name(vendor) + ".")
            channels.fcmChannelID = try fcmReader.optionalString("channel_id")
            ignored += ignoredFCMKeys(options).map { fcmReader.name($0) }
        }
        return channels
    }

    /// The ignored parts of a stored `third_party_channel` object, as paths.
    static func ignoredParts(of channels: [String: JSONValue]) -> [String] {
        channels.keys.filter { channels[$0] != .null }.flatMap { vendor -> [String] in
            let path = "options.third_party_channel.\(vendor)"
            guard vendor == fcm else { return [path] }
            guard case .object(let options)? = channels[vendor] else { return [] }
            return ignoredFCMKeys(options).map { "\(path).\($0)" }
        }
    }

    private static func ignoredFCMKeys(_ options: [String: JSONValue]) -> [String] {
        CanonicalJSON.sorted(options.keys.filter { !fcmDelivered.contains($0) && options[$0] != .null })
    }
}
