/// The `apns-collapse-id` of a message: every notification of it carries this one id, on the
/// first send, on every retry and on a re-send after a crash, so a duplicate replaces the
/// first copy on the device instead of showing twice (iOS merges two notifications only
/// when both carry the same id).
///
/// Chosen once, when the push is accepted, and stored with the message (`messages.collapse_id`):
/// 1. with `options.override_msg_id`, the collapse id of the message it overrides (of the
///    same app), so the phone replaces that one;
/// 2. else `options.apns_collapse_id`;
/// 3. else `pushrelay-<msg_id>`.
public enum CollapseID {
    /// The collapse id of message `msgID` pushed with `options`.
    ///
    /// - Parameter overridden: the collapse id of the message `options.overrideMsgID` names,
    ///   looked up in the app's messages; nil when the push overrides none.
    public static func of(_ options: PushOptions, msgID: MessageID, overridden: String?) -> String {
        overridden ?? options.apnsCollapseID ?? derived(from: msgID)
    }

    /// The collapse id of a message that gives none: `pushrelay-<msg_id>` (at most 29 bytes).
    public static func derived(from msgID: MessageID) -> String {
        "pushrelay-\(msgID)"
    }
}
