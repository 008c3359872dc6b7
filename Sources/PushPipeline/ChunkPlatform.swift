import RelayCore

/// The platform of a chunk's devices (`push_chunks.platform`): which service delivers to them
/// and with which of the app's credentials — APNs for iOS (the message's environment), FCM
/// for Android.
enum ChunkPlatform: String, Sendable, Hashable {
    /// `ios`: the devices' notification tokens. The others but `android` are iOS devices'
    /// tokens of one `PushTokenKind` (issue 29), sent through APNs like `ios`: `voip` reads
    /// `devices.voip_token`, the rest `device_push_tokens`.
    case ios, android, voip, location, complication, fileprovider, pushtotalk

    /// Whether APNs delivers it (every platform but Android).
    var isAPNs: Bool { self != .android }
}
