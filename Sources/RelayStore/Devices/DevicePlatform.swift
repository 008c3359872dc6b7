import RelayCore

/// Which push service a device's token belongs to: APNs for iOS, FCM for Android.
public enum DevicePlatform: String, Sendable, CaseIterable, Hashable {
    case ios, android

    public init(parsing raw: String) throws(DeviceFieldError) {
        guard let value = DevicePlatform(rawValue: raw) else {
            throw DeviceFieldError("platform must be \"ios\" (an APNs token) or \"android\" (an FCM registration token), got \(InputEcho.quoted(raw))")
        }
        self = value
    }
}
