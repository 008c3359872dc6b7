/// The platform of a chunk's devices (`push_chunks.platform`): which service delivers to them
/// and with which of the app's credentials — APNs for iOS (the message's environment), FCM
/// for Android.
enum ChunkPlatform: String, Sendable, Hashable {
    /// `voip`: iOS devices' VoIP tokens, sent through APNs like `ios` (issue 29).
    case ios, android, voip
}
