import RelayCore

/// The platform of a chunk's devices (`push_chunks.platform`): which service delivers to them
/// and with which of the app's credentials — APNs for iOS (the message's environment), FCM
/// for Android.
enum ChunkPlatform: String, Sendable, Hashable {
    /// `ios`: the devices' notification tokens. The others but `android` are iOS devices'
    /// tokens sent through APNs like `ios`: of one `PushTokenKind` (issue 29; `voip` reads
    /// `devices.voip_token`, the rest `device_push_tokens`), or Live Activity push-to-start
    /// (`la_start`) and update (`la_update`) tokens (issue 29, docs/live-activities.md).
    case ios, android, voip, location, complication, fileprovider, pushtotalk
    case liveActivityStart = "la_start"
    case liveActivity = "la_update"

    /// Whether APNs delivers it (every platform but Android).
    var isAPNs: Bool { self != .android }
}
