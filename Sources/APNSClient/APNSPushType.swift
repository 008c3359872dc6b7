/// The `apns-push-type` header: what kind of notification this is.
///
/// APNs checks it against the payload and the topic; `background` must be sent with priority 5.
public enum APNSPushType: String, Sendable, Hashable, CaseIterable {
    case alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk

    /// The largest payload APNs accepts for this push type, in bytes.
    public var maxPayloadSize: Int {
        self == .voip ? 5120 : 4096
    }
}

/// The `apns-priority` header.
public enum APNSPriority: Int, Sendable, Hashable, CaseIterable {
    /// Deliver now.
    case immediate = 10
    /// Deliver when it suits the device's power budget.
    case powerConsiderate = 5
    /// Deliver at the device's discretion, possibly grouped with others.
    case low = 1
}
